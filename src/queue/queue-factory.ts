import type { Processor, Queue, QueueEvents, QueueOptions, Worker, WorkerOptions } from 'bullmq';
import type { QueueName } from '../../jobs/queue-names.js';
import type { QueueBackend } from '../config/config.js';
import { trackResource } from '../lifecycle/open-resources.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import { queueTelemetry } from '../tracing/tracing.js';
import { maskUrl } from '../warehouse/database-url.js';
import { assertQueueAnswers } from './assert-queue-answers.js';
import { CLOSE_WAIT_MS, type BullmqHandle } from './bullmq-handle.js';
import { createRedis, type RedisClient } from './create-redis.js';
import {
  listPostgresConnections,
  listRedisConnections,
  mergeWorkers,
  type ConnectedWorker,
} from './list-workers.js';
import { openPostgresEvents, openPostgresQueue, openPostgresWorker } from './postgres-bullmq.js';
import { POSTGRES_QUEUE_SCHEMA } from './postgres-queue-schema.js';
import { PostgresWorkerHeartbeats } from './postgres-worker-heartbeats.js';
import { DEFAULT_HEARTBEAT_MS, type QueueFactoryOptions } from './queue-factory-options.js';
import {
  closeRedisConnection,
  openRedisEvents,
  openRedisQueue,
  openRedisWorker,
} from './redis-bullmq.js';
import { RedisKeyspace } from './redis-keyspace.js';
import { clusterNodesOf, describeRedisTarget, type RedisTarget } from './redis-target.js';
import { RedisWorkerHeartbeats } from './redis-worker-heartbeats.js';
import { WorkerHeartbeat } from './worker-heartbeat.js';
import type { WorkerHeartbeats } from './worker-heartbeats.js';
import { parseWorkerName } from './worker-identity.js';

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
   * code that works on both backends goes through `listWorkers()` and `assertAnswers()`
   * (and the admission's counters, `admissionStores`).
   */
  connection(): RedisClient {
    if (this.backend !== 'redis') {
      throw new Error('QueueFactory.connection(): the queue is on Postgres; there is no Redis');
    }
    this.shared ??= createRedis(this.redis, 'client', 'queue');
    return this.shared;
  }

  /**
   * The warehouse the Postgres backend keeps its tables in (and the admission's counters on
   * either backend: `admissionStores`); `undefined` when none was given.
   */
  get warehouse(): QueueFactoryOptions['db'] {
    return this.options.db;
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

  queue<Data = unknown>(name: QueueName, queueOptions: Partial<QueueOptions> = {}): Queue<Data> {
    const options = withTelemetry(queueOptions);
    const handle =
      this.backend === 'redis'
        ? openRedisQueue<Data>(this.connection(), this.prefix, name, options)
        : openPostgresQueue<Data>(this.options.databaseUrl!, name, options);
    // A Redis queue uses the shared connection; a Postgres one ends its own pool.
    this.closers.push({ kind: 'queue', close: handle.close });
    return handle.object;
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
    workerOptions: Partial<WorkerOptions>,
  ): Worker<Data, Result> {
    const options = withTelemetry(workerOptions);
    const handle: BullmqHandle<Worker<Data, Result>> =
      this.backend === 'redis'
        ? openRedisWorker(this.redis, this.prefix, name, processor, options)
        : openPostgresWorker(this.options.databaseUrl!, name, processor, options);
    this.closers.push({ kind: 'worker', close: handle.close });
    return handle.object;
  }

  events(name: QueueName): QueueEvents {
    const handle =
      this.backend === 'redis'
        ? openRedisEvents(this.redis, this.prefix, name)
        : openPostgresEvents(this.options.databaseUrl!, name);
    this.closers.push({ kind: 'worker', close: handle.close });
    return handle.object;
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
      await closeRedisConnection(this.shared);
      this.shared = undefined;
    }
    this.untrack();
  }

  private describe(): string {
    return this.backend === 'redis'
      ? `${this.prefix} on ${describeRedisTarget(this.redis)}`
      : `${maskUrl(this.options.databaseUrl!)} schema ${POSTGRES_QUEUE_SCHEMA}`;
  }
}

/**
 * `options` with BullMQ's telemetry (`bullmq-otel`) while tracing runs: a job carries its
 * producer's trace context, and its worker's `process` span continues that trace.
 */
function withTelemetry<T extends Partial<QueueOptions> | Partial<WorkerOptions>>(options: T): T {
  const telemetry = queueTelemetry();
  return telemetry && !options.telemetry ? { ...options, telemetry } : options;
}
