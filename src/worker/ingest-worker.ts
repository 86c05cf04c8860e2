import { setMaxListeners } from 'node:events';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Uses } from '../app/app-resources.js';
import type { AppComponent } from '../app/app-component.js';
import { CallBudget, queueLimiter, splitRateLimits } from '../dispatch/call-budget.js';
import { CallPacer } from '../dispatch/call-pacer.js';
import { QuotaGate } from '../dispatch/quota-gate.js';
import { historyWindowScope } from '../dispatch/history-window-scope.js';
import { createFeeder } from '../dispatch/create-feeder.js';
import type { QueueFeeder } from '../dispatch/queue-feeder.js';
import type { OutageMonitor } from '../lifecycle/outage-monitor.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import {
  INGEST_JOB_NAME,
  INGEST_JOB_PAYLOAD,
  type IngestJobData,
} from '../../jobs/ingest-chunk-job.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import {
  SNAPSHOT_JOB_NAME,
  SNAPSHOT_JOB_PAYLOAD,
  type SnapshotJobData,
} from '../../jobs/snapshot-job.js';
import { assertJobPayload } from '../queue/assert-job-payload.js';
import { workerName } from '../queue/worker-identity.js';
import { isLostJob } from '../queue/lost-job.js';
import { capQueuePause } from '../queue/queue-pause.js';
import { isServiceError } from '../service/service-error.js';
import { SQLSTATE, hasSqlState } from '../errors/pg-errors.js';
import { FactWriter } from '../landing/fact-writer.js';
import { createFetchSnapshotProcessor } from '../ingest/fetch-snapshot-job.js';
import type { IngestOutcome } from '../ingest/ingest-chunk-deps.js';
import { createIngestChunkProcessor } from '../ingest/ingest-chunk-job.js';
import { retryBackoffMs } from '../ingest/retry-backoff.js';
import { ThrottleBackoff } from '../ingest/throttle-backoff.js';
import { SpeciesIds } from '../warehouse/species-ids.js';
import { ApiCallMinuteRecorder } from '../metrics/api-call-minute-recorder.js';
import type { RateLimitWaitReason } from '../metrics/metrics-observer.js';
import { LandingBatcher } from '../landing/landing-batcher.js';

export interface IngestWorkerOptions {
  readonly concurrency: number;
  /** How often the feeder tops the queue up, besides when the queue drains. Default 1 s. */
  readonly feedIntervalMs?: number;
}

/**
 * After the shutdown deadline aborts the calls in flight, how long their jobs may take to hand
 * their chunks back (a ledger update, a job moved back to wait) before they are left for stalled
 * recovery. Together with closing the rest, the process exits within the deadline plus a second.
 */
const WIND_UP_MS = 500;
/** While they wind up, how often what the pool still runs in Postgres is cancelled again. */
const CANCEL_EVERY_MS = 50;
/** What closing the ledger's pending run checks may take after that. */
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

/** What the ingest queue carries, once checked (`assertJobPayload`). */
type JobData = IngestJobData | SnapshotJobData;

/**
 * One worker process's share of the work: a BullMQ worker on the ingest queue under the shared
 * rate limit, and the feeder that keeps the queue supplied from the ledger; calls go through the
 * app's service client. Any number of these may run on any number of hosts against one Redis and
 * one Postgres. A component of the app (`app.start({ worker })`), or started on its own.
 */
export class IngestWorker implements AppComponent {
  readonly name = 'worker';
  readonly worker: Worker<JobData, IngestOutcome | number>;
  readonly feeder: QueueFeeder;
  /** Spaces this process's calls of the tightest rule, when it is paced: its margin is measured. */
  readonly pacer: CallPacer | undefined;
  private readonly batcher: LandingBatcher;
  private readonly processor: ReturnType<typeof createIngestChunkProcessor>;
  private readonly snapshots: ReturnType<typeof createFetchSnapshotProcessor>;
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
    const { config, logger } = app;
    this.outages = app.outages;
    // Every job waiting out an outage listens on it: as many as the concurrency, not a leak.
    setMaxListeners(options.concurrency + 16, this.stopping.signal);
    // Throws CONFIG_INVALID without ENVDATA_API_KEY, before anything is created.
    const client = app.serviceClient;
    this.feeder = createFeeder(app);
    const windowScope = historyWindowScope(config);
    const { limiter, others } = splitRateLimits(config.rateLimits);
    const budget = new CallBudget(app.queues.callCounter(), others);
    const quota = new QuotaGate(app.queues.quotaCounter(), config.quota);
    // The tightest rule is paced at each call when it can be (see CallPacer); BullMQ's limiter
    // then binds nothing and only carries the pauses of 429s.
    const pacer = CallPacer.for(app.queues.callSlots(), limiter);
    this.pacer = pacer;
    const { observers } = app;
    this.callMinutes = new ApiCallMinuteRecorder({
      db: app.db,
      logger,
      outages: this.outages,
    });
    this.unobserve = observers.add(this.callMinutes);
    const writer = new FactWriter(app.db, {
      archiveRaw: config.ingest.archiveRaw,
      observer: observers,
    });
    this.batcher = new LandingBatcher(writer, {
      maxBatch: Math.max(1, Math.min(32, options.concurrency)),
      maxWaitMs: 15,
    });
    // Both job kinds pause every worker on a throttled answer: one burst, one growing pause.
    const { maxPauseMs } = config.worker;
    const throttle = new ThrottleBackoff(Math.random, maxPauseMs);
    this.processor = createIngestChunkProcessor({
      db: app.db,
      client,
      landings: this.batcher,
      budget,
      quota,
      quotaRecheckMs: config.worker.maxPauseMs,
      pacer,
      stopping: this.stopping.signal,
      logger,
      maxAttempts: config.worker.maxAttempts,
      refetchAttempts: config.ingest.refetchAttempts,
      rechecks: {
        recheckMs: config.ingest.recheckMs,
        noDataRecheckMs: config.ingest.noDataRecheckMs,
      },
      refetchDelayMs: config.ingest.refetchDelayMs,
      baseUrl: config.service.baseUrl,
      speciesRisk: config.ingest.speciesRisk,
      pauseAll: (ms, reason) => pauseAll(ms, reason),
      throttle,
      dispatch: (chunkIds) => this.feeder.add(chunkIds),
      outages: this.outages,
      observer: observers,
      ...(windowScope && { windowScope, windowLearned: () => void this.feed() }),
    });
    // The one place a pause of every worker is set: never beyond ENVDATA_MAX_PAUSE, whoever
    // asked (a header, the backoff, the call budget), so no answer can stop ingestion for long.
    const pauseAll = async (ms: number, reason: RateLimitWaitReason): Promise<never> => {
      observers.rateLimitWait(reason);
      await this.worker.rateLimit(Math.min(ms, maxPauseMs));
      throw Worker.RateLimitError();
    };
    this.snapshots = createFetchSnapshotProcessor({
      db: app.db,
      client,
      species: new SpeciesIds(),
      logger,
      speciesRisk: config.ingest.speciesRisk,
      pauseAll,
      throttle,
      pacer,
      stopping: this.stopping.signal,
      quota,
    });
    this.worker = app.queues.worker<JobData, IngestOutcome | number>(
      QUEUE_NAMES.ingest,
      (job: Job<JobData>, token?: string) => this.process(job, token),
      {
        concurrency: options.concurrency,
        // `envdata status` lists the workers connected by this name.
        name: workerName(options.concurrency),
        limiter: queueLimiter(pacer ? undefined : limiter),
        settings: {
          // `retry` outcomes: the job's backoff, or the answer's Retry-After when longer.
          backoffStrategy: (attemptsMade, _type, error, job) =>
            retryBackoffMs(
              backoffDelayOf(job?.opts.backoff) ?? config.worker.retryBaseMs,
              attemptsMade,
              error,
              maxPauseMs,
            ),
        },
        lockDuration: config.worker.jobLockMs,
        stalledInterval: Math.max(1_000, Math.floor(config.worker.jobLockMs / 2)),
        maxStalledCount: 3,
        autorun: false,
      },
    );
    // A lock BullMQ could not renew (Redis came back empty, or the lock ran out during a cut and
    // another worker holds the job): one line per job here; BullMQ's error for it, emitted right
    // after, is then not logged again with its stack.
    const renewalsFailed = new Set<string>();
    this.worker.on('lockRenewalFailed', (jobIds: string[]) => {
      for (const jobId of jobIds) {
        renewalsFailed.add(`could not renew lock for job ${jobId}`);
        logger.warn(
          { jobId },
          'could not renew the lock of a job in flight: it may run elsewhere too; its chunk lands once (the ledger)',
        );
      }
    });
    this.worker.on('error', (error) => {
      if (renewalsFailed.delete(error.message)) return;
      if (this.outages.report(error)) return;
      if (isLostJob(error)) {
        // After Redis lost its data, each job in flight says so once: one line, no stack.
        logger.warn(
          { reason: error.message },
          'a job in flight is gone from the queue; its chunk stays in the ledger and is dispatched again',
        );
        return;
      }
      logger.warn({ err: error }, 'worker error');
    });
    this.worker.on('drained', () => void this.feed());
  }

  /**
   * Runs one job. A job that meets an outage of Postgres or Redis keeps its slot until they
   * answer again (so the worker takes no new job meanwhile), then goes back to the queue without
   * using an attempt, like one whose call the shutdown deadline abandoned.
   */
  private process(job: Job<JobData>, token?: string): Promise<IngestOutcome | number> {
    const running = this.run(job, token);
    this.active.add(running);
    const settled = () => this.active.delete(running);
    running.then(settled, settled);
    return running;
  }

  private async run(job: Job<unknown>, token?: string): Promise<IngestOutcome | number> {
    try {
      return await this.processorOf(job, token);
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
   * Runs the processor of the job's kind once its payload holds: the edge, where a job of an
   * older release or one added by hand fails at once (`UnrecoverableError`, no retry), its message
   * naming the field; so does a job of a name no processor takes.
   */
  private processorOf(job: Job<unknown>, token?: string): Promise<IngestOutcome | number> {
    if (job.name === SNAPSHOT_JOB_NAME) {
      assertJobPayload(job, SNAPSHOT_JOB_PAYLOAD);
      return this.snapshots(job);
    }
    if (job.name === INGEST_JOB_NAME) {
      assertJobPayload(job, INGEST_JOB_PAYLOAD);
      return this.processor.process(job, token);
    }
    throw new UnrecoverableError(
      `job ${job.name} ${job.id ?? '(no id)'}: no job of that name runs on the ${QUEUE_NAMES.ingest} queue (${INGEST_JOB_NAME}, ${SNAPSHOT_JOB_NAME})`,
    );
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
    void settlesWithin(this.capPause(), CAP_PAUSE_MS).then(() => {
      if (this.closing) return;
      this.worker
        .run()
        .catch((error: unknown) => this.app.logger.error({ err: error }, 'worker stopped'));
    });
    void this.feed();
    return Promise.resolve();
  }

  /**
   * A pause of every worker left in the queue longer than ENVDATA_MAX_PAUSE (set by an older
   * envdata, or under a higher setting) is shortened to it when a worker starts: a new worker
   * never sits out, nor extends, a pause it would not have set itself.
   */
  private async capPause(): Promise<void> {
    const { maxPauseMs } = this.app.config.worker;
    try {
      const left = await capQueuePause(this.app.queues.queue(QUEUE_NAMES.ingest), maxPauseMs);
      if (left > 0) {
        this.app.logger.warn(
          { pausedForMs: left, maxPauseMs },
          'the queue held a pause of every worker longer than ENVDATA_MAX_PAUSE: shortened to it',
        );
      }
    } catch (error) {
      if (!this.outages.report(error)) {
        this.app.logger.warn({ err: error }, 'could not read the pause of the queue');
      }
    }
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
      if (!(await settlesWithin(this.whenIdle(), timeoutMs))) {
        this.app.logger.warn(
          { timeoutMs, inFlight: this.active.size },
          'in-flight chunks did not finish within ENVDATA_SHUTDOWN_TIMEOUT_MS: their calls are aborted and their chunks handed back to the queue',
        );
        this.app.abortServiceCalls();
        await this.windUp();
      }
      // BullMQ records what the jobs did (completed, back to wait) in Redis: a moment, unless
      // Redis is down.
      await settlesWithin(graceful, Math.max(0, Math.min(WIND_UP_MS, endBy - Date.now())));
      // Land what was fetched and close the runs it finished: Postgres work, bounded in case
      // Postgres is what is down (the feeder of any worker closes those runs later).
      const rest = (async () => {
        await this.batcher.drain();
        await this.processor.close();
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

  /**
   * After the deadline: waits up to `WIND_UP_MS` for the jobs to hand their chunks back, and
   * meanwhile cancels on the server what the pool still runs. A landing waiting in Postgres (for
   * a lock, say) rolls back and its job hands the chunk back like an aborted call; one queued
   * for the connection behind it may come to wait next, so this goes on until the jobs are done.
   */
  private async windUp(): Promise<void> {
    const endBy = Date.now() + WIND_UP_MS;
    let idle = false;
    const idling = this.whenIdle().then(() => {
      idle = true;
    });
    while (!idle && Date.now() < endBy) {
      await settlesWithin(this.app.cancelDatabaseStatements(), endBy - Date.now());
      await settlesWithin(idling, Math.min(CANCEL_EVERY_MS, endBy - Date.now()));
    }
  }

  /** Resolves once no job is being processed. */
  private async whenIdle(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
  }
}

/** The base delay a job's BullMQ `backoff` option gives (a number, or `{ delay }`). */
function backoffDelayOf(
  backoff: number | { readonly delay?: number } | undefined,
): number | undefined {
  return typeof backoff === 'number' ? backoff : backoff?.delay;
}
