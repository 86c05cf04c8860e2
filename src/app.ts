import type { AppComponent } from './runtime/app-component.js';
import type { CreateAppOptions } from './runtime/create-app-options.js';
import type { HttpRoute, HttpServer } from './runtime/http-server.js';
import { ProcessResources } from './runtime/process-resources.js';
import type { Config } from './config/config.js';
import { coerceError } from './errors/coerce-error.js';
import { settlesWithin } from './lifecycle/settles-within.js';
import type {
  NotificationDispatcher,
  NotificationDispatcherOptions,
} from './notify/notification-dispatcher.js';
import type { LineageDispatcherOptions } from './lineage/lineage-dispatcher.js';
import type { SyncScheduler } from './sync/sync-scheduler.js';
import type { IngestWorker, IngestWorkerOptions } from './worker/ingest-worker.js';

export type { AppComponent } from './runtime/app-component.js';

/** The components `App.start()` adds, after those added with `add()`, in this order. */
export interface StartOptions {
  /** An HTTP server: `/healthz`, and `routes`. Started first, so it answers while the rest starts. */
  readonly http?: {
    readonly host: string;
    /** 0 takes a free port (`app.http.url`). */
    readonly port: number;
    readonly routes?: readonly HttpRoute[];
  };
  /**
   * An ingest worker (`envdata worker`): takes jobs and feeds the queue; with it, housekeeping
   * (src/housekeeping/) folds finished chunks and drops expired snapshots.
   */
  readonly worker?: IngestWorkerOptions;
  /** The nightly sync's schedule and the worker that plans it (`envdata scheduler`). */
  readonly scheduler?: boolean;
  /**
   * The alerts' dispatcher (`NotificationDispatcher`): delivers the outbox to ENVDATA_NOTIFY_URL
   * and checks the periodic conditions. Every long-running command starts one; `true` takes the
   * default timings. Started last, stopped first.
   */
  readonly notifications?: boolean | NotificationDispatcherOptions;
  /**
   * The lineage dispatcher (`LineageDispatcher`), started with the notifier when
   * ENVDATA_OPENLINEAGE_URL is set; these are its timings (tests shorten them).
   */
  readonly lineage?: LineageDispatcherOptions;
}

/**
 * What a component may take beyond the shutdown deadline to hand back the work it abandoned
 * there: the worker then waits for its aborted jobs to requeue their chunks (half a second) and
 * lands what was already fetched.
 */
const STOP_GRACE_MS = 1_000;

/**
 * The composition root of one envdata process. It owns the config, the logger and the shared
 * resources, each created on first use (`ProcessResources`: the Postgres pool `db`, the Redis
 * connections `queues`, the service client `serviceClient`, the outage monitor `outages`). It
 * also runs the long-running components of the process, started in order by `start()` and
 * stopped in reverse order by `stop()`, which then closes the resources; every step is bounded
 * by ENVDATA_SHUTDOWN_TIMEOUT_MS. The CLI, workers, the demo and the tests all go through it.
 *
 * @example
 * ```ts
 * const app = createApp(config);
 * await app.start({ worker: { concurrency: 8 }, scheduler: true, http: { host: '127.0.0.1', port: 9464 } });
 * await shutdownSignal();
 * await app.stop();
 * ```
 */
export class App extends ProcessResources {
  /** Components added and not yet started. */
  private readonly pending: AppComponent[] = [];
  /** Components started, in order. */
  private readonly running: AppComponent[] = [];
  private stopping: Promise<void> | undefined;

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
      const { HEALTHZ_ROUTE, HttpServer } = await import('./runtime/http-server.js');
      this.add(
        new HttpServer({
          ...options.http,
          logger: this.logger,
          routes: [HEALTHZ_ROUTE, ...(options.http.routes ?? [])],
        }),
      );
    }
    if (options.worker) {
      const [{ IngestWorker }, { createHousekeeping }] = await Promise.all([
        import('./worker/ingest-worker.js'),
        import('./housekeeping/create-housekeeping.js'),
      ]);
      this.add(IngestWorker.create(this, options.worker));
      // Beside every worker: folds finished chunks and drops expired snapshots every 30 s.
      this.add(createHousekeeping(this));
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
    if ((options.notifications || options.lineage) && this.config.lineage) {
      const { LineageDispatcher } = await import('./lineage/lineage-dispatcher.js');
      this.add(new LineageDispatcher(this, options.lineage));
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
      await this.closeResources();
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

  /** The first component running, or added to start, that `is` picks. */
  private find<T extends AppComponent>(is: (c: AppComponent) => c is T): T | undefined {
    return [...this.running, ...this.pending].find(is);
  }

  private assertRunning(): void {
    if (this.stopping) throw new Error('envdata app is stopping: it starts nothing more');
  }
}

export function createApp(config: Config, options: CreateAppOptions = {}): App {
  return new App(config, options);
}
