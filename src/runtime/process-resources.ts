import { setMaxListeners } from 'node:events';
import type { Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import { requireApiKey } from '../config/require-api-key.js';
import { coerceError } from '../errors/coerce-error.js';
import { OutageMonitor } from '../lifecycle/outage-monitor.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import { createLogger, type Logger } from '../logging/create-logger.js';
import { createEnvdataMetrics } from '../metrics/create-envdata-metrics.js';
import type { EnvdataMetrics } from '../metrics/envdata-metrics.js';
import { MetricsObservers } from '../metrics/metrics-observers.js';
import { assertRedisAnswers } from '../queue/create-redis.js';
import { QueueFactory } from '../queue/queue-factory.js';
import { redisTargetOf } from '../queue/redis-target.js';
import { createServiceClient, type ServiceClient } from '../service/service-client.js';
import { flushTracing } from '../tracing/tracing.js';
import { cancelStatements } from '../warehouse/cancel-statements.js';
import { assertDatabaseAnswers, createDatabase } from '../warehouse/create-database.js';
import type { Database } from '../warehouse/schema.js';
import type { AppResources } from './app-resources.js';
import type { CreateAppOptions } from './create-app-options.js';

/** What closing the service client's connection pool may take. */
const CLOSE_CLIENT_MS = 300;
/** What closing the Postgres pool may take, before and after cancelling what still runs. */
const CLOSE_DATABASE_MS = 200;

/**
 * The shared resources of one envdata process, each created on first use: the Postgres pool
 * (`db`), the Redis connections (`queues`), the service client (`serviceClient`), the outage
 * monitor (`outages`) and the metrics. What `App` (src/app.ts) lends to the parts it runs; it
 * closes them with `closeResources()` once its components have stopped.
 */
export class ProcessResources implements AppResources {
  readonly config: Config;
  readonly logger: Logger;
  private database: Kysely<Database> | undefined;
  private queueFactory: QueueFactory | undefined;
  private outageMonitor: OutageMonitor | undefined;
  private client: ServiceClient | undefined;
  private envdataMetrics: EnvdataMetrics | undefined;
  private metricsObservers: MetricsObservers | undefined;
  private readonly metricsOptions: CreateAppOptions['metrics'];
  /** Aborted at the shutdown deadline: every call to the service in flight is abandoned. */
  private readonly calls = new AbortController();
  private closed = false;

  constructor(config: Config, options: CreateAppOptions = {}) {
    this.config = config;
    this.metricsOptions = options.metrics;
    this.logger =
      options.logger ??
      createLogger({
        level: config.log.level,
        format: config.log.format,
        color: config.log.color,
        secrets: [
          config.service.apiKey,
          config.console.token,
          ...config.notify.targets.map((t) => t.url),
        ],
        destination: options.logDestination,
      });
    // Every call in flight listens on it until it settles: as many as the callers allow at once
    // (a worker's concurrency, an import's four geocoding calls), which is not a leak.
    setMaxListeners(0, this.calls.signal);
  }

  /** The warehouse (Kysely over a pg pool), opened on first use. */
  get db(): Kysely<Database> {
    this.assertOpen();
    this.database ??= createDatabase({
      url: this.config.databaseUrl,
      poolMax: this.config.databasePoolMax,
      preparedStatements: this.config.databasePreparedStatements,
      logger: this.logger,
    });
    return this.database;
  }

  /**
   * BullMQ queues and workers on the configured backend (Redis with the configured prefix, a
   * Redis Cluster with REDIS_CLUSTER_NODES, or Postgres), connected on first use.
   */
  get queues(): QueueFactory {
    this.assertOpen();
    this.queueFactory ??= new QueueFactory({
      backend: this.config.queueBackend,
      redisUrl: this.config.redisUrl,
      redisClusterNodes: this.config.redisClusterNodes,
      databaseUrl: this.config.databaseUrl,
      prefix: this.config.queuePrefix,
      db: () => this.db,
      heartbeatMs: this.config.worker.heartbeatMs,
    });
    return this.queueFactory;
  }

  /**
   * The client of the Environmental Data Service, created on first use and shared by everything
   * in the process. Throws `CONFIG_INVALID` when ENVDATA_API_KEY is not set.
   */
  get serviceClient(): ServiceClient {
    this.assertOpen();
    // Kept here: a call in flight may end after the app closed.
    const observers = this.observers;
    this.client ??= createServiceClient({
      ...this.config.service,
      apiKey: requireApiKey(this.config),
      logger: this.logger,
      signal: this.calls.signal,
      onCall: (endpoint, status) => observers.serviceCall(endpoint, status),
    });
    return this.client;
  }

  /**
   * The process's Prometheus metrics (a prom-client registry with the default process metrics
   * and envdata's, `src/metrics/`), created on first use; `metricsRoute(app)` serves them. Its
   * scrape-time gauges read `db` and `queues` when scraped.
   */
  get metrics(): EnvdataMetrics {
    this.envdataMetrics ??= createEnvdataMetrics(this, this.metricsOptions || {});
    return this.envdataMetrics;
  }

  /**
   * What the hot paths report to (service calls, landings, chunk jobs, rate-limit waits): the
   * metrics, and what components add (a worker's per-minute call counts). Disabled, reporting
   * nothing, when the app was created with `metrics: false`.
   */
  get observers(): MetricsObservers {
    if (!this.metricsObservers) {
      this.metricsObservers = new MetricsObservers(this.metricsOptions !== false);
      this.metricsObservers.add(this.metrics);
    }
    return this.metricsObservers;
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
        // On the postgres backend the queue is the database: nothing more to probe.
        ...(this.config.queueBackend === 'redis'
          ? [{ name: 'Redis', check: () => assertRedisAnswers(redisTargetOf(this.config)) }]
          : []),
      ],
    });
    return this.outageMonitor;
  }

  /**
   * Abandons every call to the service in flight (`ABORTED`) and refuses new ones: the shutdown
   * deadline has passed. Workers call it when their jobs did not finish in time.
   */
  abortServiceCalls(): void {
    this.calls.abort();
  }

  /**
   * Cancels on the server every statement the pool is still running (a landing waiting for a
   * lock, say): the shutdown deadline has passed. Each fails with 57014 and rolls back; the
   * worker hands its chunk back, no attempt used. Never rejects: a Postgres that does not answer
   * runs nothing to cancel.
   */
  async cancelDatabaseStatements(): Promise<void> {
    if (!this.database) return;
    try {
      const cancelled = await cancelStatements(this.database);
      if (cancelled > 0) {
        this.logger.warn(
          { cancelled },
          'statements still running in Postgres at the shutdown deadline were cancelled; their work rolled back',
        );
      }
    } catch (error) {
      this.logger.warn({ err: coerceError(error) }, 'could not cancel the statements in Postgres');
    }
  }

  /**
   * Closes the resources: the service client (its calls in flight abandoned), the Redis
   * connections, then the pool; and exports the spans ended so far, when tracing runs, so the
   * last ones are not lost. Nothing can be opened afterwards.
   */
  protected async closeResources(): Promise<void> {
    this.closed = true;
    this.outageMonitor?.close();
    this.calls.abort();
    if (this.client) await settlesWithin(this.client.close(), CLOSE_CLIENT_MS);
    await this.queueFactory?.close();
    if (this.database) await this.closeDatabase(this.database);
    await flushTracing();
  }

  /**
   * Closes the pool once its connections are back. One still busy after a moment (a statement
   * waiting in Postgres past the deadline) has its statement cancelled on the server, so that the
   * stop stays bounded and nothing is left half-done there.
   */
  private async closeDatabase(database: Kysely<Database>): Promise<void> {
    const destroying = database.destroy();
    if (await settlesWithin(destroying, CLOSE_DATABASE_MS)) return destroying;
    await settlesWithin(this.cancelDatabaseStatements(), CLOSE_DATABASE_MS);
    if (!(await settlesWithin(destroying, CLOSE_DATABASE_MS))) {
      this.logger.warn('the Postgres pool did not close in time: left behind');
    }
  }

  /** The resources stay usable while the components stop (a worker lands what it fetched). */
  private assertOpen(): void {
    if (this.closed) throw new Error('envdata app is closed');
  }
}
