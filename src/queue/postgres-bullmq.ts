import {
  createPostgresBackend,
  withBackend,
  type PostgresConnectionOptions,
  type Processor,
  type Queue,
  type QueueEvents,
  type QueueOptions,
  type Worker,
  type WorkerOptions,
} from 'bullmq';
import type { QueueName } from '../../jobs/queue-names.js';
import { trackResource } from '../lifecycle/open-resources.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import { maskUrl } from '../warehouse/database-url.js';
import { CLOSE_WAIT_MS, type BullmqHandle } from './bullmq-handle.js';
import { addPostgresConnectBackoff } from './postgres-connect-backoff.js';
import { POSTGRES_QUEUE_SCHEMA } from './postgres-queue-schema.js';

/** BullMQ's classes on its Postgres backend. */
const OnPostgres = withBackend(createPostgresBackend);

/**
 * A queue on the Postgres backend (schema `envdata_queue` of `databaseUrl`), with a pool of its
 * own that its closing ends.
 */
export function openPostgresQueue<Data>(
  databaseUrl: string,
  name: QueueName,
  options: Partial<QueueOptions>,
): BullmqHandle<Queue<Data>> {
  const queue = asRedisTyped<Queue<Data>>(
    new OnPostgres.Queue<Data>(name, { ...options, connection: connectionOf(databaseUrl, 2) }),
  );
  queue.on('error', () => undefined);
  const backoff = addPostgresConnectBackoff(queue);
  const untrack = trackPool(databaseUrl, `queue:${name}`);
  return {
    object: queue,
    close: async () => {
      backoff.close();
      await settlesWithin(queue.close(), CLOSE_WAIT_MS);
      untrack();
    },
  };
}

/** A worker on the Postgres backend, with a pool of its own and its LISTEN connection. */
export function openPostgresWorker<Data, Result>(
  databaseUrl: string,
  name: QueueName,
  processor: Processor<Data, Result>,
  options: Partial<WorkerOptions>,
): BullmqHandle<Worker<Data, Result>> {
  // One connection per job slot for the claims and lock renewals, one for the rest.
  const pool = Math.min(10, (options.concurrency ?? 1) + 1);
  const worker = asRedisTyped<Worker<Data, Result>>(
    new OnPostgres.Worker<Data, Result>(name, processor, {
      ...options,
      connection: connectionOf(databaseUrl, pool),
    }),
  );
  const backoff = addPostgresConnectBackoff(worker);
  const untrack = trackPool(databaseUrl, `worker:${name}`);
  return {
    object: worker,
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
  };
}

/** A listener of a queue's events on the Postgres backend, on a pool of one. */
export function openPostgresEvents(
  databaseUrl: string,
  name: QueueName,
): BullmqHandle<QueueEvents> {
  const events = asRedisTyped<QueueEvents>(
    new OnPostgres.QueueEvents(name, { connection: connectionOf(databaseUrl, 1) }),
  );
  events.on('error', () => undefined);
  const backoff = addPostgresConnectBackoff(events);
  const untrack = trackPool(databaseUrl, `events:${name}`);
  return {
    object: events,
    close: async () => {
      backoff.close();
      await settledStartUp(events);
      if (!(await settlesWithin(events.close(), CLOSE_WAIT_MS))) {
        await settlesWithin(events.disconnect(), CLOSE_WAIT_MS);
      }
      untrack();
    },
  };
}

/**
 * The connection options of one BullMQ object on Postgres: a pool of `max` connections with
 * `search_path` pinned to the queue's schema (BullMQ builds it from this config; its CommonJS
 * build, the one Node loads for `bullmq`, requires `pg` itself).
 */
function connectionOf(databaseUrl: string, max: number): PostgresConnectionOptions {
  return {
    connectionString: databaseUrl,
    schema: POSTGRES_QUEUE_SCHEMA,
    migrate: true,
    max,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  };
}

/** Tracks one BullMQ object's Postgres pool as an open resource (Redis connections track themselves). */
function trackPool(databaseUrl: string, name: string): () => void {
  return trackResource('queue pg pool', `${maskUrl(databaseUrl)} (${name})`, () =>
    Promise.resolve(),
  );
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
