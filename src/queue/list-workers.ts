import { Cluster } from 'ioredis';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import type { RedisClient } from './create-redis.js';
import type { QueueName } from './queue-names.js';
import { parseWorkerName, type WorkerIdentity } from './worker-identity.js';

/** A worker connected to a queue, as Redis or Postgres sees its connection. */
export interface ConnectedWorker extends WorkerIdentity {
  /** Seconds since the connection's last command (a worker waiting for jobs stays near 0). */
  readonly idleSeconds: number;
  /** Seconds since the worker connected. */
  readonly ageSeconds: number;
}

/**
 * The workers of `queue` connected to Redis now: BullMQ names each worker's connection
 * `<prefix>:<base64 queue>:w:<name>` and ours announce `host:pid:concurrency` (`workerName`).
 * Read from `CLIENT LIST` directly: BullMQ's `getWorkers()` reports the queue name instead. On a
 * cluster, from every master's list: a name is set on the one node the SETNAME went to.
 */
export async function listRedisWorkers(
  redis: RedisClient,
  prefix: string,
  queue: QueueName,
): Promise<ConnectedWorker[]> {
  const ownName = `${prefix}:${Buffer.from(queue).toString('base64')}:w:`;
  const lists =
    redis instanceof Cluster
      ? await Promise.all(redis.nodes('master').map((node) => node.client('LIST')))
      : [await redis.client('LIST')];
  const workers: ConnectedWorker[] = [];
  for (const line of lists.map(String).join('\n').split(/\r?\n/)) {
    const fields = new Map(
      line.split(' ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    const name = fields.get('name') ?? '';
    if (!name.startsWith(ownName)) continue;
    const identity = parseWorkerName(name);
    if (!identity) continue;
    workers.push({
      ...identity,
      idleSeconds: Number(fields.get('idle') ?? 0),
      ageSeconds: Number(fields.get('age') ?? 0),
    });
  }
  return workers;
}

/**
 * The workers of `queue` on the Postgres backend: BullMQ sets the `application_name` of each
 * worker's LISTEN connection to `<queue>:w:<name>` (`createPostgresBackend`), so they are the
 * sessions of this database by that name (BullMQ's `getWorkers()` reads the same view, without
 * the times). Idle is the time since the session's last change of state.
 */
export async function listPostgresWorkers(
  db: Kysely<Database>,
  queue: QueueName,
): Promise<ConnectedWorker[]> {
  const { rows } = await sql<{ name: string; idle: number; age: number }>`
    select application_name as name,
           floor(extract(epoch from now() - coalesce(state_change, backend_start)))::int as idle,
           floor(extract(epoch from now() - backend_start))::int as age
      from pg_stat_activity
     where datname = current_database() and starts_with(application_name, ${`${queue}:w:`})
     order by backend_start`.execute(db);
  return rows.flatMap((row) => {
    const identity = parseWorkerName(row.name);
    return identity ? [{ ...identity, idleSeconds: row.idle, ageSeconds: row.age }] : [];
  });
}
