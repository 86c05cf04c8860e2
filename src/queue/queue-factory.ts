import {
  Queue,
  QueueEvents,
  Worker,
  type Processor,
  type QueueOptions,
  type WorkerOptions,
} from 'bullmq';
import type { Redis } from 'ioredis';
import { trackResource } from '../lifecycle/open-resources.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import { createRedis } from './create-redis.js';
import type { QueueName } from './queue-names.js';

/**
 * How long closing one queue, worker or connection may wait on Redis. Workers wind up their jobs
 * before (IngestWorker, SyncScheduler); what is left here is a few commands, unless Redis is down,
 * where waiting would only hang the shutdown.
 */
const CLOSE_WAIT_MS = 500;

export interface QueueFactoryOptions {
  redisUrl: string;
  /** BullMQ key prefix (ENVDATA_QUEUE_PREFIX). */
  prefix: string;
}

/**
 * The queue seam: creates BullMQ queues, workers and event listeners on connections of its
 * own, all with the configured prefix. `close()` closes everything it created.
 */
export class QueueFactory {
  private readonly closers: { kind: 'queue' | 'worker'; close: () => Promise<unknown> }[] = [];
  private shared: Redis | undefined;
  private readonly untrack: () => void;

  constructor(private readonly options: QueueFactoryOptions) {
    this.untrack = trackResource('queue factory', options.prefix, () => this.close());
  }

  get prefix(): string {
    return this.options.prefix;
  }

  /** One shared non-blocking connection for queues and plain commands. */
  connection(): Redis {
    this.shared ??= createRedis(this.options.redisUrl, 'client', 'queue');
    return this.shared;
  }

  queue<Data = unknown>(name: QueueName, options: Partial<QueueOptions> = {}): Queue<Data> {
    const queue = new Queue<Data>(name, {
      ...options,
      connection: this.connection(),
      prefix: this.options.prefix,
    });
    queue.on('error', () => undefined);
    this.closers.push({ kind: 'queue', close: () => settlesWithin(queue.close(), CLOSE_WAIT_MS) });
    return queue;
  }

  /** A worker on its own blocking connection (`maxRetriesPerRequest: null`). */
  worker<Data = unknown, Result = unknown>(
    name: QueueName,
    processor: Processor<Data, Result>,
    options: Partial<WorkerOptions> = {},
  ): Worker<Data, Result> {
    const connection = createRedis(this.options.redisUrl, 'worker', `worker:${name}`);
    const worker = new Worker<Data, Result>(name, processor, {
      ...options,
      connection,
      prefix: this.options.prefix,
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
    const connection = createRedis(this.options.redisUrl, 'worker', `events:${name}`);
    const events = new QueueEvents(name, { connection, prefix: this.options.prefix });
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
   * Closes workers and event listeners first, then queues, then the shared connection, each
   * group at once. Bounded: whatever waits on Redis longer than a moment (Redis is down) is
   * disconnected instead.
   */
  async close(): Promise<void> {
    const closers = this.closers.splice(0);
    await Promise.all(closers.filter((c) => c.kind !== 'queue').map((c) => c.close()));
    await Promise.all(closers.filter((c) => c.kind === 'queue').map((c) => c.close()));
    if (this.shared) {
      await closeConnection(this.shared);
      this.shared = undefined;
    }
    this.untrack();
  }
}

/** QUIT when Redis answers (pending replies arrive first), else drop the socket at once. */
async function closeConnection(connection: Redis): Promise<void> {
  if (connection.status === 'ready') {
    const quitting = connection.quit().catch(() => undefined);
    if (await settlesWithin(quitting, CLOSE_WAIT_MS)) return;
  }
  connection.disconnect();
}
