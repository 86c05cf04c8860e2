import {
  Queue,
  QueueEvents,
  Worker,
  type Processor,
  type QueueOptions,
  type WorkerOptions,
} from 'bullmq';
import type { QueueName } from '../../jobs/queue-names.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import { CLOSE_WAIT_MS, type BullmqHandle } from './bullmq-handle.js';
import { createRedis, type RedisClient } from './create-redis.js';
import type { RedisTarget } from './redis-target.js';

/**
 * A queue on Redis under `prefix`, on `connection`: the shared non-blocking one, which its
 * owner closes, not the queue.
 */
export function openRedisQueue<Data>(
  connection: RedisClient,
  prefix: string,
  name: QueueName,
  options: Partial<QueueOptions>,
): BullmqHandle<Queue<Data>> {
  const queue = new Queue<Data>(name, { ...options, connection, prefix });
  queue.on('error', () => undefined);
  return {
    object: queue,
    close: async () => {
      await settlesWithin(queue.close(), CLOSE_WAIT_MS);
    },
  };
}

/** A worker on its own blocking connection to `target` (`maxRetriesPerRequest: null`). */
export function openRedisWorker<Data, Result>(
  target: RedisTarget,
  prefix: string,
  name: QueueName,
  processor: Processor<Data, Result>,
  options: Partial<WorkerOptions>,
): BullmqHandle<Worker<Data, Result>> {
  const connection = createRedis(target, 'worker', `worker:${name}`);
  const worker = new Worker<Data, Result>(name, processor, { ...options, connection, prefix });
  // BullMQ leaves a connection it was handed open; the handle owns it and closes it.
  return {
    object: worker,
    close: async () => {
      const closing = worker.close();
      // Redis is down (nothing to wait for), or a job is still running: cutting the
      // connection ends both.
      if (connection.status !== 'ready' || !(await settlesWithin(closing, CLOSE_WAIT_MS))) {
        connection.disconnect();
        await settlesWithin(closing, CLOSE_WAIT_MS);
      }
      await closeRedisConnection(connection);
    },
  };
}

/** A listener of a queue's events on its own blocking connection to `target`. */
export function openRedisEvents(
  target: RedisTarget,
  prefix: string,
  name: QueueName,
): BullmqHandle<QueueEvents> {
  const connection = createRedis(target, 'worker', `events:${name}`);
  const events = new QueueEvents(name, { connection, prefix });
  events.on('error', () => undefined);
  return {
    object: events,
    close: async () => {
      if (!(await settlesWithin(events.close(), CLOSE_WAIT_MS))) connection.disconnect();
      await closeRedisConnection(connection);
    },
  };
}

/** QUIT when Redis answers (pending replies arrive first), else drop the socket at once. */
export async function closeRedisConnection(connection: RedisClient): Promise<void> {
  if (connection.status === 'ready') {
    const quitting = connection.quit().catch(() => undefined);
    if (await settlesWithin(quitting, CLOSE_WAIT_MS)) return;
  }
  connection.disconnect();
}
