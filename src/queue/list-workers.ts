import { Cluster } from 'ioredis';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import type { RedisClient } from './create-redis.js';
import type { QueueName } from '../../jobs/queue-names.js';
import type { HeartbeatReading } from './worker-heartbeats.js';
import { parseWorkerName, type WorkerIdentity } from './worker-identity.js';

/** A queue connection of a worker, as Redis or Postgres sees it. */
export interface WorkerConnection extends WorkerIdentity {
  /** Seconds since the connection's last command. */
  readonly idleSeconds: number;
  /** Seconds since the worker connected. */
  readonly ageSeconds: number;
}

/**
 * A worker of a queue: alive by its heartbeat (`WorkerHeartbeat`), connected by what Redis or
 * Postgres sees of its connection, or both. Listed while either holds: a worker killed with
 * SIGKILL drops its connection at once and stays listed until its last beat expires; a worker of
 * an envdata without heartbeats (or whose event loop is stuck) is listed by its connection, not
 * alive.
 */
export interface ConnectedWorker extends WorkerIdentity {
  /**
   * Seconds since its connection's last command (a worker waiting for jobs stays near 0; one busy
   * with every slot grows: that is not a sign of death, `alive` is); without a connection, since
   * its last beat.
   */
  readonly idleSeconds: number;
  /** Seconds since the worker connected (or, without a connection, since it started). */
  readonly ageSeconds: number;
  /** Whether its last heartbeat has not expired: the worker runs, busy or idle. */
  readonly alive: boolean;
  /** When it last reported itself alive; `null` without a heartbeat. */
  readonly lastHeartbeatAt: Date | null;
  /** Jobs it was working on at that heartbeat; `null` without one. */
  readonly busy: number | null;
  /** Whether its queue connection is open now. */
  readonly connected: boolean;
}

/**
 * The workers of a queue from its connections and its live heartbeats, matched by identity
 * (host, pid, concurrency), each connection to at most one heartbeat: the workers alive first
 * (by host and pid), then the connections without a heartbeat.
 */
export function mergeWorkers(
  connections: readonly WorkerConnection[],
  heartbeats: readonly HeartbeatReading[],
  now = new Date(),
): ConnectedWorker[] {
  const unmatched = [...connections];
  const same = (a: WorkerIdentity, b: WorkerIdentity) =>
    a.host === b.host && a.pid === b.pid && a.concurrency === b.concurrency;
  const alive = [...heartbeats]
    .sort((a, b) => a.host.localeCompare(b.host) || a.pid - b.pid || a.id.localeCompare(b.id))
    .map((beat): ConnectedWorker => {
      const at = unmatched.findIndex((c) => same(c, beat));
      const connection = at >= 0 ? unmatched.splice(at, 1)[0] : undefined;
      return {
        host: beat.host,
        pid: beat.pid,
        concurrency: beat.concurrency,
        idleSeconds: connection?.idleSeconds ?? Math.floor(beat.beatAgeSeconds),
        ageSeconds: connection?.ageSeconds ?? Math.floor(beat.ageSeconds),
        alive: true,
        lastHeartbeatAt: new Date(now.getTime() - Math.round(beat.beatAgeSeconds * 1000)),
        busy: beat.busy,
        connected: connection !== undefined,
      };
    });
  const silent = unmatched.map((c): ConnectedWorker => ({
    ...c,
    alive: false,
    lastHeartbeatAt: null,
    busy: null,
    connected: true,
  }));
  return [...alive, ...silent];
}

/**
 * The worker connections of `queue` to Redis now: BullMQ names each worker's connection
 * `<prefix>:<base64 queue>:w:<name>` and ours announce `host:pid:concurrency` (`workerName`).
 * Read from `CLIENT LIST` directly: BullMQ's `getWorkers()` reports the queue name instead. On a
 * cluster, from every master's list: a name is set on the one node the SETNAME went to.
 */
export async function listRedisConnections(
  redis: RedisClient,
  prefix: string,
  queue: QueueName,
): Promise<WorkerConnection[]> {
  const ownName = `${prefix}:${Buffer.from(queue).toString('base64')}:w:`;
  const lists =
    redis instanceof Cluster
      ? await Promise.all(redis.nodes('master').map((node) => node.client('LIST')))
      : [await redis.client('LIST')];
  const workers: WorkerConnection[] = [];
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
 * The worker connections of `queue` on the Postgres backend: BullMQ sets the `application_name` of each
 * worker's LISTEN connection to `<queue>:w:<name>` (`createPostgresBackend`), so they are the
 * sessions of this database by that name (BullMQ's `getWorkers()` reads the same view, without
 * the times). Idle is the time since the session's last change of state.
 */
export async function listPostgresConnections(
  db: Kysely<Database>,
  queue: QueueName,
): Promise<WorkerConnection[]> {
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
