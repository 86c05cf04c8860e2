import type { Kysely } from 'kysely';
import type { DestinationStream } from 'pino';
import type { Config } from './config/config.js';
import { OutageMonitor } from './lifecycle/outage-monitor.js';
import { createLogger, type Logger } from './logging/create-logger.js';
import { assertRedisAnswers } from './queue/create-redis.js';
import { QueueFactory } from './queue/queue-factory.js';
import { assertDatabaseAnswers, createDatabase } from './warehouse/create-database.js';
import type { Database } from './warehouse/schema.js';

export interface CreateAppOptions {
  /** Use this logger instead of building one from the config (tests capture lines this way). */
  logger?: Logger;
  /**
   * Where the logger built from the config writes; default standard error. The CLI passes its
   * `StatusLine` on a terminal, so log lines never collide with a progress bar.
   */
  logDestination?: DestinationStream;
}

/**
 * The composition root of one envdata process: it owns the logger, the Postgres pool and the
 * Redis connections, created on first use, and closes them all in `close()`. The CLI, workers,
 * the demo and the tests all go through it.
 */
export class App {
  readonly config: Config;
  readonly logger: Logger;
  private database: Kysely<Database> | undefined;
  private queueFactory: QueueFactory | undefined;
  private outageMonitor: OutageMonitor | undefined;
  private closed = false;

  constructor(config: Config, options: CreateAppOptions = {}) {
    this.config = config;
    this.logger =
      options.logger ??
      createLogger({
        level: config.log.level,
        format: config.log.format,
        color: config.log.color,
        secrets: [config.service.apiKey],
        destination: options.logDestination,
      });
  }

  /** The warehouse (Kysely over a pg pool), opened on first use. */
  get db(): Kysely<Database> {
    this.assertOpen();
    this.database ??= createDatabase({
      url: this.config.databaseUrl,
      poolMax: this.config.databasePoolMax,
      logger: this.logger,
    });
    return this.database;
  }

  /** BullMQ queues and workers with the configured prefix, connected on first use. */
  get queues(): QueueFactory {
    this.assertOpen();
    this.queueFactory ??= new QueueFactory({
      redisUrl: this.config.redisUrl,
      prefix: this.config.queuePrefix,
    });
    return this.queueFactory;
  }

  /**
   * Rides out outages of Postgres and Redis for this process's long-running loops (workers, the
   * scheduler, `--wait`): one monitor per process, so an outage is logged once whoever meets it.
   */
  get outages(): OutageMonitor {
    this.assertOpen();
    this.outageMonitor ??= new OutageMonitor({
      logger: this.logger,
      probes: [
        { name: 'Postgres', check: () => assertDatabaseAnswers(this.config.databaseUrl) },
        { name: 'Redis', check: () => assertRedisAnswers(this.config.redisUrl) },
      ],
    });
    return this.outageMonitor;
  }

  /** Closes workers and queues first, then the pool. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.outageMonitor?.close();
    await this.queueFactory?.close();
    await this.database?.destroy();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('envdata app is closed');
  }
}

export function createApp(config: Config, options: CreateAppOptions = {}): App {
  return new App(config, options);
}
