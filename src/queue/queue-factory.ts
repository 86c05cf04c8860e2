import {
  Queue,
  QueueEvents,
  Worker,
  createPostgresBackend,
  withBackend,
  type PostgresConnectionOptions,
  type Processor,
  type QueueOptions,
  type WorkerOptions,
} from 'bullmq';
import type { Kysely } from 'kysely';
import type { QueueBackend } from '../config/config.js';
import type { RedisNode } from '../config/redis-cluster-nodes.js';
import { trackResource } from '../lifecycle/open-resources.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import { assertDatabaseAnswers } from '../warehouse/create-database.js';
import { maskUrl } from '../warehouse/database-url.js';
import type { Database } from '../warehouse/schema.js';
import type { CallCounter } from './call-counter.js';
import type { QuotaCounter } from './quota-counter.js';
import { RedisQuotaCounter } from './redis-quota-counter.js';
import { PostgresQuotaCounter } from './postgres-quota-counter.js';
import type { CallSlots } from './call-slots.js';
import { assertRedisAnswers, createRedis, type RedisClient } from './create-redis.js';
import {
  listPostgresConnections,
  listRedisConnections,
  mergeWorkers,
  type ConnectedWorker,
} from './list-workers.js';
import { PostgresCallCounter } from './postgres-call-counter.js';
import { addPostgresConnectBackoff } from './postgres-connect-backoff.js';
import { PostgresCallSlots } from './postgres-call-slots.js';
import type { QueueName } from '../../jobs/queue-names.js';
import { RedisCallCounter } from './redis-call-counter.js';
import { RedisCallSlots } from './redis-call-slots.js';
import { RedisKeyspace } from './redis-keyspace.js';
import { PostgresWorkerHeartbeats } from './postgres-worker-heartbeats.js';
import { RedisWorkerHeartbeats } from './redis-worker-heartbeats.js';
import { WorkerHeartbeat } from './worker-heartbeat.js';
import type { WorkerHeartbeats } from './worker-heartbeats.js';
import { parseWorkerName } from './worker-identity.js';
import { clusterNodesOf, describeRedisTarget, type RedisTarget } from './redis-target.js';

/**
 * How long closing one queue, worker or connection may wait on Redis or Postgres. Workers wind up
 * their jobs before (IngestWorker, SyncScheduler); what is left here is a few commands, unless the
 * backend is down, where waiting would only hang the shutdown.
 */
const CLOSE_WAIT_MS = 500;

/** BullMQ's classes on its Postgres backend. */
const OnPostgres = withBackend(createPostgresBackend);

/**
 * The Postgres schema BullMQ's tables live in with ENVDATA_QUEUE_BACKEND=postgres, beside the
 * warehouse's `envdata` in the database of DATABASE_URL. One database holds one installation (the
 * warehouse's schema is fixed), so the schema needs no prefix: ENVDATA_QUEUE_PREFIX is Redis's.
 * BullMQ creates and migrates it itself on first connect (its own ledger, `envdata_queue.migration`,
 * under an advisory lock), so `envdata migrate` knows nothing of it and its tables follow the
 * installed BullMQ version, not our frozen migrations.
 */
export const POSTGRES_QUEUE_SCHEMA = 'envdata_queue';

export interface QueueFactoryOptions {
  /** Where BullMQ keeps the queue (ENVDATA_QUEUE_BACKEND); default `redis`. */
  backend?: QueueBackend;
  redisUrl: string;
  /**
   * The nodes of a Redis Cluster (REDIS_CLUSTER_NODES) to use instead of `redisUrl`, with its
   * credentials and TLS; empty or absent: one Redis at `redisUrl`.
   */
  redisClusterNodes?: readonly RedisNode[];
  /** The warehouse's database; with the `postgres` backend, the queue's too. */
  databaseUrl?: string;
  /**
   * ENVDATA_QUEUE_PREFIX; Redis only. Every key is named from it by `RedisKeyspace` (on a
   * cluster, as the hash tag `{prefix}`).
   */
  prefix: string;
  /**
   * The warehouse pool, for what the `postgres` backend keeps in our own tables (the call budget)
   * and reads of `pg_stat_activity` (the workers connected). Called on first use only.
   */
  db?: () => Kysely<Database>;
  /**
   * How often every worker this factory creates reports itself alive (ENVDATA_WORKER_HEARTBEAT);
   * its beat expires after three of these. Default 5 s.
   */
  heartbeatMs?: number;
}

/** ENVDATA_WORKER_HEARTBEAT's default. */
export const DEFAULT_HEARTBEAT_MS = 5_000;

interface Closer {
  kind: 'queue' | 'worker' | 'heartbeat';
  close: () => Promise<unknown>;
}

/**
 * The queue seam: creates BullMQ queues, workers and event listeners on connections of its own,
 * on Redis (the default, with the configured prefix), on a Redis Cluster (REDIS_CLUSTER_NODES:
 * every connection is an ioredis `Cluster`, every key in the slot of `{prefix}`) or on Postgres
 * (schema `envdata_queue` of DATABASE_URL). Callers see the same BullMQ API either way.
 * `close()` closes everything it created.
 *
 * On Postgres each queue, worker and listener owns a small `pg` pool plus, for workers and
 * listeners, one LISTEN connection (BullMQ's `PostgresConnection`): the warehouse pool is not
 * lent to BullMQ, so a busy queue never starves the landings, and closing a BullMQ object ends
 * exactly its connections.
 */
export class QueueFactory {
  private readonly closers: Closer[] = [];
  private shared: RedisClient | undefined;
  private readonly untrack: () => void;
  /** Where the Redis backend's connections go: REDIS_URL, or the cluster's nodes. */
  private readonly redis: RedisTarget;
  /** The names of every Redis key (BullMQ's prefix, envdata's own keys). */
  readonly keyspace: RedisKeyspace;

  constructor(private readonly options: QueueFactoryOptions) {
    if (this.backend === 'postgres' && (!options.databaseUrl || !options.db)) {
      throw new Error('the postgres queue backend needs databaseUrl and db');
    }
    this.redis = { url: options.redisUrl, clusterNodes: options.redisClusterNodes ?? [] };
    this.keyspace = new RedisKeyspace(options.prefix, clusterNodesOf(this.redis) !== undefined);
    this.untrack = trackResource('queue factory', this.describe(), () => this.close());
  }

  get backend(): QueueBackend {
    return this.options.backend ?? 'redis';
  }

  /** The BullMQ prefix of every queue: ENVDATA_QUEUE_PREFIX, `{ENVDATA_QUEUE_PREFIX}` on a cluster. */
  get prefix(): string {
    return this.keyspace.bullmqPrefix;
  }

  /** Whether the Redis backend is a Redis Cluster (REDIS_CLUSTER_NODES). */
  get cluster(): boolean {
    return this.backend === 'redis' && clusterNodesOf(this.redis) !== undefined;
  }

  /**
   * One shared non-blocking Redis connection for queues and plain commands. Redis backend only:
   * code that works on both backends goes through `callCounter()`, `listWorkers()` and
   * `assertAnswers()`.
   */
  connection(): RedisClient {
    if (this.backend !== 'redis') {
      throw new Error('QueueFactory.connection(): the queue is on Postgres; there is no Redis');
    }
    this.shared ??= createRedis(this.redis, 'client', 'queue');
    return this.shared;
  }

  /** The call budget's counters, beside the queue: Redis keys, or `envdata.call_budget`. */
  callCounter(): CallCounter {
    return this.backend === 'redis'
      ? new RedisCallCounter(this.connection(), this.keyspace)
      : new PostgresCallCounter(this.options.db!);
  }

  /** The calendar quotas' counters, beside the queue: Redis keys, or `envdata.quota_usage`. */
  quotaCounter(): QuotaCounter {
    return this.backend === 'redis'
      ? new RedisQuotaCounter(this.connection(), this.keyspace)
      : new PostgresQuotaCounter(this.options.db!);
  }

  /** The call slots of the tightest rule, beside the queue: a Redis list, or `envdata.call_pace`. */
  callSlots(): CallSlots {
    return this.backend === 'redis'
      ? new RedisCallSlots(this.connection(), this.keyspace)
      : new PostgresCallSlots(this.options.db!);
  }

  /** The workers' heartbeats, beside the queue: Redis keys, or `envdata.worker_heartbeat`. */
  workerHeartbeats(): WorkerHeartbeats {
    return this.backend === 'redis'
      ? new RedisWorkerHeartbeats(this.connection(), this.keyspace)
      : new PostgresWorkerHeartbeats(this.options.db!);
  }

  /**
   * The workers of `queue` now: those alive by their heartbeat, with the jobs in hand, and
   * those connected without one (`mergeWorkers`), by the name they announced (`workerName`).
   */
  async listWorkers(queue: QueueName): Promise<ConnectedWorker[]> {
    const [connections, heartbeats] = await Promise.all([
      this.backend === 'redis'
        ? listRedisConnections(this.connection(), this.prefix, queue)
        : listPostgresConnections(this.options.db!(), queue),
      this.workerHeartbeats().list(queue),
    ]);
    return mergeWorkers(connections, heartbeats);
  }

  /**
   * Checks that the backend answers; throws `REDIS_UNAVAILABLE` or `DATABASE_UNAVAILABLE` with
   * the operator's next step.
   */
  assertAnswers(): Promise<void> {
    return assertQueueAnswers({ ...this.options, redis: this.redis });
  }

  queue<Data = unknown>(name: QueueName, options: Partial<QueueOptions> = {}): Queue<Data> {
    let queue: Queue<Data>;
    if (this.backend === 'redis') {
      queue = new Queue<Data>(name, {
        ...options,
        connection: this.connection(),
        prefix: this.prefix,
      });
    } else {
      queue = asRedisTyped<Queue<Data>>(
        new OnPostgres.Queue<Data>(name, { ...options, connection: this.postgres(2) }),
      );
    }
    queue.on('error', () => undefined);
    const backoff = this.connectBackoff(queue);
    const untrack = this.trackPostgres(`queue:${name}`);
    this.closers.push({
      kind: 'queue',
      close: async () => {
        backoff.close();
        // A Redis queue uses the shared connection; a Postgres one ends its own pool.
        await settlesWithin(queue.close(), CLOSE_WAIT_MS);
        untrack();
      },
    });
    return queue;
  }

  /**
   * A worker on its own blocking connection (Redis: `maxRetriesPerRequest: null`). One that
   * announces itself (`options.name`, a `workerName`) also beats its heartbeat
   * (`WorkerHeartbeat`), with the jobs it is processing, from now until it closes: `listWorkers`
   * lists it by both.
   */
  worker<Data = unknown, Result = unknown>(
    name: QueueName,
    processor: Processor<Data, Result>,
    options: Partial<WorkerOptions> = {},
  ): Worker<Data, Result> {
    const identity = options.name === undefined ? undefined : parseWorkerName(`:w:${options.name}`);
    if (!identity) return this.createWorker(name, processor, options);
    let busy = 0;
    const counted: Processor<Data, Result> = async (job, token, signal) => {
      busy += 1;
      try {
        return await processor(job, token, signal);
      } finally {
        busy -= 1;
      }
    };
    const worker = this.createWorker(name, counted, options);
    const heartbeat = new WorkerHeartbeat({
      heartbeats: this.workerHeartbeats(),
      queue: name,
      identity,
      busy: () => busy,
      intervalMs: this.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    });
    heartbeat.start();
    const stop = () => settlesWithin(heartbeat.stop(), CLOSE_WAIT_MS);
    // A worker closed by its owner (IngestWorker.close) stops beating then, not when the
    // factory closes.
    worker.on('closed', () => void stop());
    this.closers.push({ kind: 'heartbeat', close: stop });
    return worker;
  }

  private createWorker<Data, Result>(
    name: QueueName,
    processor: Processor<Data, Result>,
    options: Partial<WorkerOptions>,
  ): Worker<Data, Result> {
    if (this.backend === 'postgres') {
      // One connection per job slot for the claims and lock renewals, one for the rest.
      const pool = Math.min(10, (options.concurrency ?? 1) + 1);
      const worker = asRedisTyped<Worker<Data, Result>>(
        new OnPostgres.Worker<Data, Result>(name, processor, {
          ...options,
          connection: this.postgres(pool),
        }),
      );
      const backoff = addPostgresConnectBackoff(worker);
      const untrack = this.trackPostgres(`worker:${name}`);
      this.closers.push({
        kind: 'worker',
        close: async () => {
          backoff.close();
          await settledStartUp(worker);
          const closing = worker.close();
          // A job still running, or Postgres is down: ending the pool cuts both.
          if (!(await settlesWithin(closing, CLOSE_WAIT_MS))) {
            await settlesWithin(worker.disconnect(), CLOSE_WAIT_MS);
            await settlesWithin(closing, CLOSE_WAIT_MS);
          }
          untrack();
        },
      });
      return worker;
    }
    const connection = createRedis(this.redis, 'worker', `worker:${name}`);
    const worker = new Worker<Data, Result>(name, processor, {
      ...options,
      connection,
      prefix: this.prefix,
    });
    // BullMQ leaves a connection it was handed open; this factory owns it and closes it.
    this.closers.push({
      kind: 'worker',
      close: async () => {
        const closing = worker.close();
        // Redis is down (nothing to wait for), or a job is still running: cutting the
        // connection ends both.
        if (connection.status !== 'ready' || !(await settlesWithin(closing, CLOSE_WAIT_MS))) {
          connection.disconnect();
          await settlesWithin(closing, CLOSE_WAIT_MS);
        }
        await closeConnection(connection);
      },
    });
    return worker;
  }

  events(name: QueueName): QueueEvents {
    if (this.backend === 'postgres') {
      const events = asRedisTyped<QueueEvents>(
        new OnPostgres.QueueEvents(name, { connection: this.postgres(1) }),
      );
      events.on('error', () => undefined);
      const backoff = addPostgresConnectBackoff(events);
      const untrack = this.trackPostgres(`events:${name}`);
      this.closers.push({
        kind: 'worker',
        close: async () => {
          backoff.close();
          await settledStartUp(events);
          if (!(await settlesWithin(events.close(), CLOSE_WAIT_MS))) {
            await settlesWithin(events.disconnect(), CLOSE_WAIT_MS);
          }
          untrack();
        },
      });
      return events;
    }
    const connection = createRedis(this.redis, 'worker', `events:${name}`);
    const events = new QueueEvents(name, { connection, prefix: this.prefix });
    events.on('error', () => undefined);
    this.closers.push({
      kind: 'worker',
      close: async () => {
        if (!(await settlesWithin(events.close(), CLOSE_WAIT_MS))) connection.disconnect();
        await closeConnection(connection);
      },
    });
    return events;
  }

  /**
   * Closes workers and event listeners first, then their heartbeats, then queues, then the
   * shared connection, each group at once. Bounded: whatever waits on the backend longer than a
   * moment (it is down) is disconnected instead.
   */
  async close(): Promise<void> {
    const closers = this.closers.splice(0);
    const group = (kind: Closer['kind']) =>
      Promise.all(closers.filter((c) => c.kind === kind).map((c) => c.close()));
    await group('worker');
    await group('heartbeat');
    await group('queue');
    if (this.shared) {
      await closeConnection(this.shared);
      this.shared = undefined;
    }
    this.untrack();
  }

  /**
   * The connection options of one BullMQ object on Postgres: a pool of `max` connections with
   * `search_path` pinned to the queue's schema (BullMQ builds it from this config; its CommonJS
   * build, the one Node loads for `bullmq`, requires `pg` itself).
   */
  private postgres(max: number): PostgresConnectionOptions {
    return {
      connectionString: this.options.databaseUrl!,
      schema: POSTGRES_QUEUE_SCHEMA,
      migrate: true,
      max,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
    };
  }

  /** On the `postgres` backend, paces the object's queries after a failed connect. */
  private connectBackoff(bullObject: unknown): { close(): void } {
    if (this.backend !== 'postgres') return { close: () => undefined };
    return addPostgresConnectBackoff(bullObject);
  }

  /** Tracks one BullMQ object's Postgres pool as an open resource (Redis connections track themselves). */
  private trackPostgres(name: string): () => void {
    if (this.backend !== 'postgres') return () => undefined;
    return trackResource('queue pg pool', `${maskUrl(this.options.databaseUrl!)} (${name})`, () =>
      Promise.resolve(),
    );
  }

  private describe(): string {
    return this.backend === 'redis'
      ? `${this.prefix} on ${describeRedisTarget(this.redis)}`
      : `${maskUrl(this.options.databaseUrl!)} schema ${POSTGRES_QUEUE_SCHEMA}`;
  }
}

/**
 * Checks that the queue's backend answers: Redis (`REDIS_UNAVAILABLE`), or on the `postgres`
 * backend the database (`DATABASE_UNAVAILABLE`), each with the operator's next step.
 */
export async function assertQueueAnswers(options: {
  backend?: QueueBackend;
  /** The Redis backend's Redis: REDIS_URL, or a cluster (`redisTargetOf(config)`). */
  redis: RedisTarget;
  databaseUrl?: string;
}): Promise<void> {
  if ((options.backend ?? 'redis') === 'redis') await assertRedisAnswers(options.redis);
  else await assertDatabaseAnswers(options.databaseUrl!);
}

/**
 * Lets a Postgres worker or listener finish starting up (bounded) before it is closed: BullMQ
 * opens and names its LISTEN connection while it starts, and one opened after `close()` began
 * would outlive it (seen as an idle `application_name = <queue>` connection after close).
 */
async function settledStartUp(object: { waitUntilReady(): Promise<unknown> }): Promise<void> {
  await settlesWithin(
    object.waitUntilReady().catch(() => undefined),
    CLOSE_WAIT_MS,
  );
}

/**
 * A BullMQ object on the Postgres backend as the Redis-typed class callers know. The API is the
 * same on both backends (BullMQ's `IQueueBackend`); the types differ only in their backend and
 * connection parameters, which nothing outside this file touches.
 */
function asRedisTyped<T>(value: unknown): T {
  return value as T;
}

/** QUIT when Redis answers (pending replies arrive first), else drop the socket at once. */
async function closeConnection(connection: RedisClient): Promise<void> {
  if (connection.status === 'ready') {
    const quitting = connection.quit().catch(() => undefined);
    if (await settlesWithin(quitting, CLOSE_WAIT_MS)) return;
  }
  connection.disconnect();
}
