import { setMaxListeners } from 'node:events';
import type { Kysely } from 'kysely';
import type { DestinationStream } from 'pino';
import type { AppComponent } from './app/app-component.js';
import type { HttpRoute, HttpServer } from './app/http-server.js';
import type { Config } from './config/config.js';
import { requireApiKey } from './config/require-api-key.js';
import { coerceError } from './errors/coerce-error.js';
import { OutageMonitor } from './lifecycle/outage-monitor.js';
import { settlesWithin } from './lifecycle/settles-within.js';
import { createLogger, type Logger } from './logging/create-logger.js';
import { createEnvdataMetrics } from './metrics/create-envdata-metrics.js';
import type { EnvdataMetrics, EnvdataMetricsOptions } from './metrics/envdata-metrics.js';
import { MetricsObservers } from './metrics/metrics-observers.js';
import type {
  NotificationDispatcher,
  NotificationDispatcherOptions,
} from './notify/notification-dispatcher.js';
import { assertRedisAnswers } from './queue/create-redis.js';
import { QueueFactory } from './queue/queue-factory.js';
import { redisTargetOf } from './queue/redis-target.js';
import { createServiceClient, type ServiceClient } from './service/service-client.js';
import type { SyncScheduler } from './sync/sync-scheduler.js';
import { cancelStatements } from './warehouse/cancel-statements.js';
import { assertDatabaseAnswers, createDatabase } from './warehouse/create-database.js';
import type { Database } from './warehouse/schema.js';
import type { IngestWorker, IngestWorkerOptions } from './worker/ingest-worker.js';

export type { AppComponent } from './app/app-component.js';

export interface CreateAppOptions {
  /** Use this logger instead of building one from the config (tests capture lines this way). */
  logger?: Logger;
  /**
   * Where the logger built from the config writes; default standard error. The CLI passes its
   * `StatusLine` on a terminal, so log lines never collide with a progress bar.
   */
  logDestination?: DestinationStream;
  /**
   * `false`: the hot paths report to no one (`app.observers` is disabled: no Prometheus
   * counters, no per-minute call counts); how a benchmark measures what metrics cost. Otherwise
   * settings of the scrape-time gauges (tests read them uncached: `{ collectTtlMs: 0 }`).
   */
  metrics?: false | Pick<EnvdataMetricsOptions, 'collectTtlMs' | 'collectTimeoutMs'>;
}

/** The components `App.start()` adds, after those added with `add()`, in this order. */
export interface StartOptions {
  /** An HTTP server: `/healthz`, and `routes`. Started first, so it answers while the rest starts. */
  readonly http?: {
    readonly host: string;
    /** 0 takes a free port (`app.http.url`). */
    readonly port: number;
    readonly routes?: readonly HttpRoute[];
  };
  /** An ingest worker (`envdata worker`): takes jobs and feeds the queue. */
  readonly worker?: IngestWorkerOptions;
  /** The nightly sync's schedule and the worker that plans it (`envdata scheduler`). */
  readonly scheduler?: boolean;
  /**
   * The alerts' dispatcher (`NotificationDispatcher`): delivers the outbox to ENVDATA_NOTIFY_URL
   * and checks the periodic conditions. Every long-running command starts one; `true` takes the
   * default timings. Started last, stopped first.
   */
  readonly notifications?: boolean | NotificationDispatcherOptions;
}

/**
 * What a component may take beyond the shutdown deadline to hand back the work it abandoned
 * there: the worker then waits for its aborted jobs to requeue their chunks (half a second) and
 * lands what was already fetched.
 */
const STOP_GRACE_MS = 1_000;
/** What closing the service client's connection pool may take. */
const CLOSE_CLIENT_MS = 300;
/** What closing the Postgres pool may take, before and after cancelling what still runs. */
const CLOSE_DATABASE_MS = 200;

/**
 * The composition root of one envdata process. It owns the config, the logger and the shared
 * resources, each created on first use: the Postgres pool (`db`), the Redis connections
 * (`queues`), the service client (`serviceClient`) and the outage monitor (`outages`). It also
 * runs the long-running components of the process, started in order by `start()` and stopped in
 * reverse order by `stop()`, which then closes the resources; every step is bounded by
 * ENVDATA_SHUTDOWN_TIMEOUT_MS. The CLI, workers, the demo and the tests all go through it.
 *
 * @example
 * ```ts
 * const app = createApp(config);
 * await app.start({ worker: { concurrency: 8 }, scheduler: true, http: { host: '127.0.0.1', port: 9464 } });
 * await shutdownSignal();
 * await app.stop();
 * ```
 */
export class App {
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
  /** Components added and not yet started. */
  private readonly pending: AppComponent[] = [];
  /** Components started, in order. */
  private readonly running: AppComponent[] = [];
  private stopping: Promise<void> | undefined;
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

  /** The HTTP server started by `start({ http })`, to add routes to. */
  get http(): HttpServer | undefined {
    return this.find((c): c is HttpServer => c.name === 'http');
  }

  /** The ingest worker started by `start({ worker })`. */
  get worker(): IngestWorker | undefined {
    return this.find((c): c is IngestWorker => c.name === 'worker');
  }

  /** The alerts' dispatcher started by `start({ notifications })`. */
  get notifier(): NotificationDispatcher | undefined {
    return this.find((c): c is NotificationDispatcher => c.name === 'notifier');
  }

  /** The scheduler started by `start({ scheduler: true })`. */
  get scheduler(): SyncScheduler | undefined {
    return this.find((c): c is SyncScheduler => c.name === 'scheduler');
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

  /** Adds a component for the next `start()`. */
  add(component: AppComponent): this {
    this.assertRunning();
    this.pending.push(component);
    return this;
  }

  /**
   * Starts the components added with `add()`, then those `options` ask for: the HTTP server,
   * the worker, the scheduler, the notifier, in this order (stopped in reverse: the scheduler stops planning,
   * the worker finishes its chunks, the server answers until the end). When one fails to start,
   * those already started are stopped and its error is thrown; the resources stay open until
   * `stop()`. May be called again to start more.
   */
  async start(options: StartOptions = {}): Promise<void> {
    this.assertRunning();
    // Each component's module is loaded here, when asked for: a command that only reads the
    // database (`status`, `locations list`) never loads the worker, the scheduler, the
    // notifier or the HTTP server, nor the packages they use.
    if (options.http) {
      const { HEALTHZ_ROUTE, HttpServer } = await import('./app/http-server.js');
      this.add(
        new HttpServer({
          ...options.http,
          logger: this.logger,
          routes: [HEALTHZ_ROUTE, ...(options.http.routes ?? [])],
        }),
      );
    }
    if (options.worker) {
      const { IngestWorker } = await import('./worker/ingest-worker.js');
      this.add(IngestWorker.create(this, options.worker));
    }
    if (options.scheduler) {
      const { SyncScheduler } = await import('./sync/sync-scheduler.js');
      this.add(new SyncScheduler(this));
    }
    if (options.notifications) {
      const { NotificationDispatcher } = await import('./notify/notification-dispatcher.js');
      this.add(
        new NotificationDispatcher(
          this,
          options.notifications === true ? {} : options.notifications,
        ),
      );
    }
    const started: AppComponent[] = [];
    try {
      for (const component of this.pending.splice(0)) {
        await component.start();
        started.push(component);
        this.running.push(component);
      }
    } catch (error) {
      for (const c of started) this.running.splice(this.running.indexOf(c), 1);
      await this.stopComponents(
        started.reverse(),
        Date.now() + this.config.worker.shutdownTimeoutMs,
      );
      throw error;
    }
  }

  /**
   * Stops the components in reverse order of starting, then closes the service client, the
   * Redis connections and the pool. The components share ENVDATA_SHUTDOWN_TIMEOUT_MS: each may
   * finish its work in hand until that deadline (plus a moment to hand back what it abandoned
   * there), so the whole stop is bounded whatever is down. Safe to call twice.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const endBy = Date.now() + this.config.worker.shutdownTimeoutMs;
      await this.stopComponents(this.running.splice(0).reverse(), endBy);
      this.closed = true;
      this.outageMonitor?.close();
      this.calls.abort();
      if (this.client) await settlesWithin(this.client.close(), CLOSE_CLIENT_MS);
      await this.queueFactory?.close();
      if (this.database) await this.closeDatabase(this.database);
    })();
    return this.stopping;
  }

  /** `stop()`, for code that only used the resources (`db`, `queues`, `serviceClient`). */
  close(): Promise<void> {
    return this.stop();
  }

  private async stopComponents(components: readonly AppComponent[], endBy: number): Promise<void> {
    for (const component of components) {
      const timeoutMs = Math.max(0, endBy - Date.now());
      const stopping = component.stop(timeoutMs);
      stopping.catch((error: unknown) =>
        this.logger.warn(
          { err: coerceError(error), component: component.name },
          'component failed to stop',
        ),
      );
      if (!(await settlesWithin(stopping, timeoutMs + STOP_GRACE_MS))) {
        this.logger.warn(
          { component: component.name, timeoutMs },
          'component did not stop within ENVDATA_SHUTDOWN_TIMEOUT_MS: left behind',
        );
      }
    }
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

  /** The first component running, or added to start, that `is` picks. */
  private find<T extends AppComponent>(is: (c: AppComponent) => c is T): T | undefined {
    return [...this.running, ...this.pending].find(is);
  }

  /** The resources stay usable while the components stop (a worker lands what it fetched). */
  private assertOpen(): void {
    if (this.closed) throw new Error('envdata app is closed');
  }

  private assertRunning(): void {
    if (this.stopping) throw new Error('envdata app is stopping: it starts nothing more');
  }
}

export function createApp(config: Config, options: CreateAppOptions = {}): App {
  return new App(config, options);
}
