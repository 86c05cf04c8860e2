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
import { createRedis } from './create-redis.js';
import type { QueueName } from './queue-names.js';

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
  private readonly closers: (() => Promise<void>)[] = [];
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
    this.closers.push(() => queue.close());
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
    this.closers.push(async () => {
      await worker.close();
      await connection.quit().catch(() => connection.disconnect());
    });
    return worker;
  }

  events(name: QueueName): QueueEvents {
    const connection = createRedis(this.options.redisUrl, 'worker', `events:${name}`);
    const events = new QueueEvents(name, { connection, prefix: this.options.prefix });
    events.on('error', () => undefined);
    this.closers.push(async () => {
      await events.close();
      await connection.quit().catch(() => connection.disconnect());
    });
    return events;
  }

  /** Closes workers first (they finish in-flight jobs), then queues and connections. */
  async close(): Promise<void> {
    const closers = this.closers.splice(0).reverse();
    for (const close of closers) await close();
    if (this.shared) {
      await this.shared.quit().catch(() => this.shared?.disconnect());
      this.shared = undefined;
    }
    this.untrack();
  }
}
