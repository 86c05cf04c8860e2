import { setMaxListeners } from 'node:events';
import { Worker, type Job } from 'bullmq';
import type { Uses } from '../runtime/app-resources.js';
import type { AppComponent } from '../runtime/app-component.js';
import type { CallPacer } from '../admission/call-pacer.js';
import { createFeeder } from '../dispatch/create-feeder.js';
import type { QueueFeeder } from '../dispatch/queue-feeder.js';
import type { OutageMonitor } from '../lifecycle/outage-monitor.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import { isServiceError } from '../service/service-error.js';
import { SQLSTATE, hasSqlState } from '../errors/pg-errors.js';
import { ApiCallMinuteRecorder } from '../metrics/api-call-minute-recorder.js';
import { createJobProcessors, type WorkerProcessors } from './create-job-processors.js';
import { createQueueWorker } from './create-queue-worker.js';
import { capPauseAtStart } from './cap-pause-at-start.js';
import { WIND_UP_MS, whenIdle, windUpJobs } from './wind-up-jobs.js';
import { routeJob, type IngestQueueData, type IngestQueueResult } from './route-job.js';

export interface IngestWorkerOptions {
  readonly concurrency: number;
  /** How often the feeder tops the queue up, besides when the queue drains. Default 1 s. */
  readonly feedIntervalMs?: number;
}

/** What closing the ledger's pending run checks may take after the wind-up (`WIND_UP_MS`). */
const CLOSE_REST_MS = 300;
/** What the last flush of the per-minute call counts may take at least (within the second). */
const FLUSH_CALLS_MS = 100;
/** How long a starting worker waits for the queue's pause to be capped before taking jobs. */
const CAP_PAUSE_MS = 2_000;

/** The resources a worker uses. */
type WorkerResources = Uses<
  | 'abortServiceCalls'
  | 'cancelDatabaseStatements'
  | 'config'
  | 'db'
  | 'logger'
  | 'observers'
  | 'outages'
  | 'queues'
  | 'serviceClient'
>;

/**
 * One worker process's share of the work: a BullMQ worker on the ingest queue under the shared
 * rate limit, and the feeder that keeps the queue supplied from the ledger; calls go through the
 * app's service client. Any number of these may run on any number of hosts against one Redis and
 * one Postgres. A component of the app (`app.start({ worker })`), or started on its own.
 */
export class IngestWorker implements AppComponent {
  readonly name = 'worker';
  readonly worker: Worker<IngestQueueData, IngestQueueResult>;
  readonly feeder: QueueFeeder;
  /** Spaces this process's calls of the tightest rule, when it is paced: its margin is measured. */
  readonly pacer: CallPacer | undefined;
  private readonly processors: WorkerProcessors;
  private timer: NodeJS.Timeout | undefined;
  /** Aborted when closing starts: jobs waiting out an outage give their slot back at once. */
  private readonly stopping = new AbortController();
  /** The process's outage monitor, kept: it must be reachable after the app closed. */
  private readonly outages: OutageMonitor;
  /** The jobs being processed (whatever BullMQ still has to record about them). */
  private readonly active = new Set<Promise<unknown>>();
  private closing: Promise<void> | undefined;
  /** This process's calls per minute, for `envdata.api_call_minute`. */
  private readonly callMinutes: ApiCallMinuteRecorder;
  private readonly unobserve: () => void;

  private constructor(
    private readonly app: WorkerResources,
    private readonly options: IngestWorkerOptions,
  ) {
    this.outages = app.outages;
    // Every job waiting out an outage listens on it: as many as the concurrency, not a leak.
    setMaxListeners(options.concurrency + 16, this.stopping.signal);
    // Throws CONFIG_INVALID without ENVDATA_API_KEY, before anything is created.
    this.processors = createJobProcessors(app, {
      concurrency: options.concurrency,
      stopping: this.stopping.signal,
      pauseWorkers: (ms) => this.worker.rateLimit(ms),
      dispatch: (chunkIds) => this.feeder.add(chunkIds),
      feed: () => void this.feed(),
    });
    this.pacer = this.processors.admission.pacer;
    this.feeder = createFeeder(app);
    this.callMinutes = new ApiCallMinuteRecorder({
      db: app.db,
      logger: app.logger,
      outages: this.outages,
    });
    this.unobserve = app.observers.add(this.callMinutes);
    this.worker = createQueueWorker(app, {
      concurrency: options.concurrency,
      limiter: this.processors.admission.limiter,
      process: (job, token) => this.process(job, token),
      feed: () => void this.feed(),
    });
  }

  /**
   * Runs one job. A job that meets an outage of Postgres or Redis keeps its slot until they
   * answer again (so the worker takes no new job meanwhile), then goes back to the queue without
   * using an attempt, like one whose call the shutdown deadline abandoned.
   */
  private process(job: Job<IngestQueueData>, token?: string): Promise<IngestQueueResult> {
    const running = this.run(job, token);
    this.active.add(running);
    const settled = () => this.active.delete(running);
    running.then(settled, settled);
    return running;
  }

  private async run(job: Job<unknown>, token?: string): Promise<IngestQueueResult> {
    try {
      return await routeJob(this.processors, job, token);
    } catch (error) {
      if (isServiceError(error, 'ABORTED')) throw Worker.RateLimitError();
      // A statement the shutdown deadline cancelled (a claim, a snapshot's write): nothing of
      // it was kept, and the job goes back without using an attempt.
      if (this.stopping.signal.aborted && hasSqlState(error, SQLSTATE.queryCanceled)) {
        throw Worker.RateLimitError();
      }
      if (!this.outages.report(error)) throw error;
      await this.outages.whenAvailable(this.stopping.signal);
      throw Worker.RateLimitError();
    }
  }

  /**
   * A worker that takes no job until `start()`. Throws `CONFIG_INVALID` when ENVDATA_API_KEY is
   * not set.
   */
  static create(app: WorkerResources, options: IngestWorkerOptions): IngestWorker {
    return new IngestWorker(app, options);
  }

  /** A worker taking jobs (and feeding the queue) at once; `close()` stops it. */
  static start(app: WorkerResources, options: IngestWorkerOptions): IngestWorker {
    const worker = new IngestWorker(app, options);
    void worker.start();
    return worker;
  }

  /** Starts taking jobs and feeding the queue. */
  start(): Promise<void> {
    if (this.timer || this.closing) return Promise.resolve();
    this.timer = setInterval(() => void this.feed(), this.options.feedIntervalMs ?? 1_000);
    this.callMinutes.start();
    // Before the first job: a worker that met an overlong pause would sit out 30 s of it
    // (BullMQ's maximumRateLimitDelay) before looking again.
    void settlesWithin(capPauseAtStart(this.app, this.outages), CAP_PAUSE_MS).then(() => {
      if (this.closing) return;
      this.worker
        .run()
        .catch((error: unknown) => this.app.logger.error({ err: error }, 'worker stopped'));
    });
    void this.feed();
    return Promise.resolve();
  }

  /**
   * Tops the queue up; errors are logged, not thrown (the next tick tries again). An outage of
   * Postgres or Redis is reported once for the process, and feeding waits until it is over.
   */
  async feed(): Promise<void> {
    if (this.closing || this.outages.ongoing) return;
    try {
      await this.feeder.topUp();
    } catch (error) {
      // Closing while a pass was under way: the pool or queue it used may be gone; nothing to say.
      if (this.closing) return;
      if (!this.outages.report(error)) {
        this.app.logger.warn({ err: error }, 'could not feed the queue; will try again');
      }
    }
  }

  /**
   * Stops taking jobs and lets in-flight chunks finish for up to `timeoutMs`. At the deadline,
   * their calls to the service are aborted: each chunk goes back to `queued` in the ledger and its
   * job back to the queue, no attempt used, for another worker. A job waiting out an outage gives
   * its slot back at once. When Redis is down, what BullMQ could not record is left to stalled
   * recovery (the ledger has the truth). Everything is bounded, so the process exits within
   * `timeoutMs` plus a second whatever is down.
   *
   * At the deadline the app's service calls are abandoned (`app.abortServiceCalls()`) and the
   * statements its pool still runs are cancelled on the server (`app.cancelDatabaseStatements()`:
   * a landing waiting for a lock rolls back, its chunk goes back, no attempt used): the deadline
   * is the process's, so nothing else should be calling the service or waiting in Postgres.
   */
  close(timeoutMs = this.app.config.worker.shutdownTimeoutMs): Promise<void> {
    this.closing ??= (async () => {
      const endBy = Date.now() + timeoutMs + WIND_UP_MS;
      clearInterval(this.timer);
      this.stopping.abort();
      const graceful = this.worker.close();
      if (!(await settlesWithin(whenIdle(this.active), timeoutMs))) {
        this.app.logger.warn(
          { timeoutMs, inFlight: this.active.size },
          'in-flight chunks did not finish within ENVDATA_SHUTDOWN_TIMEOUT_MS: their calls are aborted and their chunks handed back to the queue',
        );
        this.app.abortServiceCalls();
        await windUpJobs(this.active, () => this.app.cancelDatabaseStatements());
      }
      // BullMQ records what the jobs did (completed, back to wait) in Redis: a moment, unless
      // Redis is down.
      await settlesWithin(graceful, Math.max(0, Math.min(WIND_UP_MS, endBy - Date.now())));
      // Land what was fetched and close the runs it finished: Postgres work, bounded in case
      // Postgres is what is down (the feeder of any worker closes those runs later).
      const rest = (async () => {
        await this.processors.batcher.drain();
        await this.processors.chunks.close();
        await this.processors.shapes.flush();
      })();
      rest.catch((error: unknown) => {
        if (!this.outages.report(error)) {
          this.app.logger.warn({ err: error }, 'could not close finished runs; the feeder will');
        }
      });
      await settlesWithin(rest, Math.max(CLOSE_REST_MS, endBy - Date.now()));
      // The calls of the jobs just wound up, counted once more (Postgres may be what is down).
      this.unobserve();
      await this.callMinutes.stop(Math.max(FLUSH_CALLS_MS, endBy - Date.now()));
    })();
    return this.closing;
  }

  /** `close(timeoutMs)`: how the app stops it. */
  stop(timeoutMs: number): Promise<void> {
    return this.close(timeoutMs);
  }
}
