import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QueueKeys } from 'bullmq';
import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { parseRateLimits } from '../../src/config/rate-limit.js';
import { RedisKeyspace } from '../../src/queue/redis-keyspace.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';

/**
 * Every key one installation keeps in Redis: BullMQ's keys of each of our queues (named by
 * BullMQ's own `QueueKeys` from the prefix we give it) and envdata's own (the call budget's
 * counters of a two-rule ENVDATA_RATE_LIMIT, over a few windows).
 */
function everyKey(keyspace: RedisKeyspace): string[] {
  const bullmq = new QueueKeys(keyspace.bullmqPrefix);
  const queueKeys = Object.values(QUEUE_NAMES).flatMap((name) => [
    ...Object.values(bullmq.getKeys(name)),
    // A job's hash, its lock and its logs: `<prefix>:<queue>:<id>[:lock|:logs]`.
    bullmq.toKey(name, 'chunk-2024-06-02-1-pollen'),
    bullmq.toKey(name, 'chunk-2024-06-02-1-pollen:lock'),
    bullmq.toKey(name, 'chunk-2024-06-02-1-pollen:logs'),
  ]);
  const rules = parseRateLimits('20/s,50000/day') as Exclude<
    ReturnType<typeof parseRateLimits>,
    string
  >;
  const now = Date.parse('2026-11-23T12:00:00Z');
  const budget = rules.flatMap((rule) =>
    [0, 1, 2].map((i) =>
      keyspace.budgetCounter(rule.durationMs, Math.floor(now / rule.durationMs) + i),
    ),
  );
  const heartbeats = Object.values(QUEUE_NAMES).flatMap((name) => [
    keyspace.workerHeartbeats(name),
    keyspace.workerHeartbeat(name, 'host-a:1234:8:9f86d081'),
  ]);
  return [...queueKeys, ...budget, keyspace.paceSlots('20/1000ms'), ...heartbeats];
}

describe('RedisKeyspace', () => {
  it('on a cluster, puts every key of an installation in the slot of its hash tag {prefix}', () => {
    for (const prefix of ['envdata', 'acme.prod-2', 'x']) {
      const keyspace = new RedisKeyspace(prefix, true);
      expect(keyspace.bullmqPrefix).toBe(`{${prefix}}`);
      const keys = everyKey(keyspace);
      const slots = new Set(keys.map((key) => calculateSlot(key)));
      expect([...slots], keys.join('\n')).toEqual([calculateSlot(prefix)]);
    }
  });

  it('gives two installations on one cluster two slots (their own tags), so they can sit on two nodes', () => {
    const a = everyKey(new RedisKeyspace('envdata', true)).map((k) => calculateSlot(k));
    const b = everyKey(new RedisKeyspace('envdata-eu', true)).map((k) => calculateSlot(k));
    expect(new Set(a).size).toBe(1);
    expect(new Set(b).size).toBe(1);
    expect(a[0]).not.toBe(b[0]);
  });

  it('on one Redis, keeps ENVDATA_QUEUE_PREFIX as it is (the keys of existing installations)', () => {
    const keyspace = new RedisKeyspace('envdata', false);
    expect(keyspace.bullmqPrefix).toBe('envdata');
    expect(keyspace.budgetCounter(86_400_000, 20_415)).toBe(
      'envdata:envdata:budget:86400000:20415',
    );
    // Without a tag the keys spread over slots: what a cluster would refuse in one script.
    expect(new Set(everyKey(keyspace).map((k) => calculateSlot(k))).size).toBeGreaterThan(1);
  });

  it('names envdata’s own keys under <prefix>:envdata:, apart from BullMQ’s queue names', () => {
    const keyspace = new RedisKeyspace('envdata', true);
    expect(keyspace.key('budget', 1000, 7)).toBe('{envdata}:envdata:budget:1000:7');
    expect(Object.values(QUEUE_NAMES)).not.toContain('envdata');
  });
});

/** Every `.ts` file under `dir`, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('the keys envdata names itself', () => {
  it('are named only by RedisKeyspace: no other file of src/ holds a raw Redis connection', () => {
    // A raw connection (`queues.connection()`, `createRedis`) is how code could name a key of its
    // own; outside src/queue/ only BullMQ's API and the admission's counters reach Redis.
    const offenders = sourceFiles('src')
      .filter((file) => !file.startsWith(join('src', 'queue')))
      .filter((file) => file !== join('src', 'admission', 'admission-stores.ts'))
      .filter((file) =>
        // `db.connection()` is Kysely's: a Postgres connection.
        /(?<!\bdb)\.connection\(\)|createRedis\(|new (Redis|Cluster)\(/.test(
          readFileSync(file, 'utf8'),
        ),
      );
    expect(offenders).toEqual([]);
    // Inside it, the one command that names a key of envdata's takes it from the keyspace.
    const counters = readFileSync(join('src', 'admission', 'redis-window-counters.ts'), 'utf8');
    expect(counters).toContain('this.keyspace.budgetCounter(');
    expect(counters).toContain('this.keyspace.paceSlots(');
  });
});
