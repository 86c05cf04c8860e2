import { describe, expect, it } from 'vitest';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { assertRedisAnswers } from '../../src/queue/create-redis.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { redisTargetOf } from '../../src/queue/redis-target.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { collectStatus, type EnvdataStatus } from '../../src/status/collect-status.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { useCleanReference } from '../backfill/clean-reference.js';
import { runChunks } from '../backfill/run-chunks.js';
import { factRows, warehouseDigest } from '../backfill/warehouse-digest.js';
import { serveConsole } from '../console/serve-console.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { pollUntil } from '../harness/poll-until.js';
import { useRedisCluster, type ClusterKey } from '../harness/redis-cluster.js';
import { useEnvdataProcesses, type RunningEnvdata } from '../harness/start-envdata.js';
import { waitForRun } from '../harness/wait-for-run.js';

// A Redis Cluster of this file's own (three masters on loopback), started before the fixtures
// below build their apps: every app, worker and command of the file goes to it.
const redis = useRedisCluster();
// The simulator's rate-limit windows follow its clock: it must run (no frozen `now`).
const fx = useBackfillFixture({ now: null }, redis.env, { queueBackend: 'redis' });
const reference = useCleanReference(redis.env, { queueBackend: 'redis' });

// 2024-06-02 is on the 48-hour grid: 2 datasets × 2 locations × 5 windows = 20 chunks.
const range = backfillRange('2024-06-02', '2024-06-12');
// The tightest rule is BullMQ's limiter; the other is the call budget's, counted in Redis keys.
const RATE_LIMIT = '8/s,5000/min';
const KILLED_CONCURRENCY = 2;

const startProcess = useEnvdataProcesses();

/** `envdata worker` as its own process, on the cluster. */
function spawnWorker(): RunningEnvdata {
  return startProcess(
    ['worker'],
    fx.cliEnv({
      ...redis.env,
      ENVDATA_RATE_LIMIT: RATE_LIMIT,
      ENVDATA_WORKER_CONCURRENCY: String(KILLED_CONCURRENCY),
      ENVDATA_JOB_LOCK_MS: '2000',
      ENVDATA_ARCHIVE_RAW: 'false',
    }),
  );
}

/** The keys of the cluster by BullMQ prefix (`{<ENVDATA_QUEUE_PREFIX>}`). */
function byPrefix(keys: readonly ClusterKey[]): Map<string, ClusterKey[]> {
  const groups = new Map<string, ClusterKey[]>();
  for (const key of keys) {
    const prefix = /^(\{[^}]*\}):/.exec(key.key)?.[1] ?? `(no hash tag: ${key.key})`;
    groups.set(prefix, [...(groups.get(prefix) ?? []), key]);
  }
  return groups;
}

describe('a backfill through a three-node Redis Cluster', () => {
  it('rides out a 429 storm, the shared limit and a SIGKILLed worker, and lands what a clean run lands', async () => {
    // More calls than the service allows: a storm of 429s.
    fx.simulator.setOptions({ rateLimit: { max: 5, durationMs: 1_000, retryAfter: 'sometimes' } });
    const app = fx.newApp({ ENVDATA_RATE_LIMIT: RATE_LIMIT });
    expect(app.queues.prefix).toBe(`{${fx.env.queuePrefix}}`);
    const start = await startBackfill(app, { ...range, locations: fx.locations });
    const runId = start.runId!;
    expect(start.estimate.chunks).toBe(20);

    const killed = spawnWorker();
    await waitForRun(app.db, runId, { until: (p) => p.done >= 4, timeoutMs: 40_000 });
    killed.child.kill('SIGKILL');
    expect((await killed.exited).signal).toBe('SIGKILL');
    const atKill = await runChunks(app.db, runId);
    const inFlightAtKill = atKill.filter((c) => c.status === 'running').length;
    expect(atKill.filter((c) => c.status === 'done').length).toBeLessThan(20);
    expect(inFlightAtKill).toBeLessThanOrEqual(KILLED_CONCURRENCY);

    // The killed process's jobs stay active on the cluster until their locks lapse.
    const worker = IngestWorker.start(app, { concurrency: 4 });
    try {
      const progress = await waitForRun(app.db, runId, { timeoutMs: 50_000 });
      expect(progress).toMatchObject({ status: 'done', done: 20, failed: 0, inFlight: 0 });
    } finally {
      await worker.close();
    }

    const stats = fx.simulator.stats();
    expect(stats.byStatus['429']).toBeGreaterThan(0);
    expect(stats.byStatus['200']).toBeGreaterThanOrEqual(20);
    expect(stats.byStatus['200']).toBeLessThanOrEqual(20 + inFlightAtKill);
    // Neither a 429 nor a kill costs an attempt.
    const chunks = await runChunks(app.db, runId);
    expect(new Set(chunks.map((c) => `${c.status} ${c.attempts}`))).toEqual(new Set(['done 1']));

    // The call budget's per-minute counters (the second rule) are on the cluster, in the slot.
    const budget = await redis.cluster.keys(`{${fx.env.queuePrefix}}:envdata:budget:60000:*`);
    expect(budget.length).toBeGreaterThan(0);

    const digest = await warehouseDigest(app.db);
    expect(factRows(digest)).toBe(start.estimate.expectedRows);
    expect(digest).toEqual(await reference.digestAfter(range));
  });

  it('keeps every key of an installation in one slot, on one node', async () => {
    const keys = await redis.cluster.keys();
    const groups = byPrefix(keys);
    // This file's two installations (the run above and its clean reference), nothing else.
    expect([...groups.keys()].sort()).toEqual(
      [`{${fx.env.queuePrefix}}`, `{${reference.queuePrefix}}`].sort(),
    );
    for (const [prefix, group] of groups) {
      expect(group.length, prefix).toBeGreaterThan(1);
      expect(new Set(group.map((k) => k.slot)).size, prefix).toBe(1);
      expect(new Set(group.map((k) => k.port)).size, prefix).toBe(1);
    }
    // BullMQ's keys of the ingest queue and envdata's own are among them.
    const ours = groups.get(`{${fx.env.queuePrefix}}`)!.map((k) => k.key);
    expect(ours).toContain(`{${fx.env.queuePrefix}}:${QUEUE_NAMES.ingest}:meta`);
    expect(ours.some((k) => k.startsWith(`{${fx.env.queuePrefix}}:envdata:budget:`))).toBe(true);
  });
});

describe('status, readiness, metrics and the queues board on a Redis Cluster', () => {
  it('report the cluster, its queue counts and the workers connected to it', async () => {
    const served = await serveConsole(fx);
    const worker = IngestWorker.start(served.app, { concurrency: 1 });
    try {
      const status = await pollUntil<EnvdataStatus, EnvdataStatus>(
        async () => {
          const s = await collectStatus(served.app);
          return (s.redis.workers?.length ?? 0) > 0 ? { done: s } : { last: s };
        },
        { timeoutMs: 10_000, describe: (s) => `no worker listed: ${JSON.stringify(s?.redis)}` },
      );
      expect(status.redis).toMatchObject({
        ok: true,
        backend: 'redis',
        url: redis.cluster.nodesEnv,
      });
      expect(status.redis.queues?.[QUEUE_NAMES.ingest]).toMatchObject({ waiting: 0, failed: 0 });
      expect(status.redis.workers?.[0]).toMatchObject({ pid: process.pid, concurrency: 1 });

      const ready = await fetch(`${served.url}/readyz`);
      expect(ready.status).toBe(200);

      const metrics = await (await fetch(`${served.url}/metrics`)).text();
      expect(metrics).toMatch(/^envdata_queue_jobs\{state="waiting"\} 0$/m);

      // Bull Board's header merges INFO of every master of the cluster.
      const board = await fetch(`${served.url}/queues/api/queues?activeQueue=ingest&page=1`);
      expect(board.status).toBe(200);
      const stats = await fetch(`${served.url}/queues/api/redis/stats`);
      expect(stats.status).toBe(200);
      const body = (await stats.json()) as { mode?: string; memory?: { used?: number } };
      expect(body.mode).toBe('cluster');
      expect(body.memory?.used).toBeGreaterThan(0);
    } finally {
      await worker.close();
      await served.stop();
    }
  });

  it('says which nodes do not answer when the cluster is unreachable', async () => {
    const error: unknown = await assertRedisAnswers(
      { url: 'redis://:hunter22@127.0.0.1:1', clusterNodes: [{ host: '127.0.0.1', port: 1 }] },
      1_000,
    ).catch((e: unknown) => e);
    expect(isEnvdataError(error) && error.code).toBe('REDIS_UNAVAILABLE');
    const message = (error as Error).message;
    expect(message).toContain('REDIS_CLUSTER_NODES 127.0.0.1:1');
    expect(message).not.toContain('hunter22');
    // And the outage monitor's probe of a healthy cluster passes.
    await expect(assertRedisAnswers(redisTargetOf(fx.app.config))).resolves.toBeUndefined();
  });
});
