import { Worker, type Job } from 'bullmq';
import type { App } from '../app.js';
import { CallBudget, queueLimiter, splitRateLimits } from '../dispatch/call-budget.js';
import type { IngestJobData } from '../dispatch/ingest-job.js';
import { createFeeder } from '../dispatch/create-feeder.js';
import type { QueueFeeder } from '../dispatch/queue-feeder.js';
import { EnvdataError } from '../errors/envdata-error.js';
import { QUEUE_NAMES } from '../queue/queue-names.js';
import { workerName } from '../queue/worker-identity.js';
import { createServiceClient, type ServiceClient } from '../service/service-client.js';
import { FactWriter } from '../warehouse/fact-writer.js';
import { createFetchSnapshotProcessor } from '../../jobs/fetch-snapshot.js';
import { createIngestChunkProcessor, type IngestOutcome } from '../../jobs/ingest-chunk.js';
import { SNAPSHOT_JOB_NAME, type SnapshotJobData } from '../dispatch/snapshot-job.js';
import { SpeciesIds } from '../warehouse/species-ids.js';
import { LandingBatcher } from './landing-batcher.js';

export interface IngestWorkerOptions {
  readonly concurrency: number;
  /** How often the feeder tops the queue up, besides when the queue drains. Default 1 s. */
  readonly feedIntervalMs?: number;
}

/**
 * One worker process's share of the work: a BullMQ worker on the ingest queue under the shared
 * rate limit, the feeder that keeps the queue supplied from the ledger, and the service client.
 * Any number of these may run on any number of hosts against one Redis and one Postgres.
 */
export class IngestWorker {
  readonly worker: Worker<IngestJobData | SnapshotJobData, IngestOutcome | number>;
  readonly feeder: QueueFeeder;
  private readonly client: ServiceClient;
  private readonly batcher: LandingBatcher;
  private readonly processor: ReturnType<typeof createIngestChunkProcessor>;
  private readonly timer: NodeJS.Timeout;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly app: App,
    options: IngestWorkerOptions,
  ) {
    const { config, logger } = app;
    const apiKey = config.service.apiKey;
    if (!apiKey) {
      throw new EnvdataError(
        'USAGE',
        'ENVDATA_API_KEY is not set: workers call the service and need your API key',
      );
    }
    this.client = createServiceClient({ ...config.service, apiKey, logger });
    this.feeder = createFeeder(app);
    const { limiter, others } = splitRateLimits(config.rateLimits);
    const budget = new CallBudget(app.queues.connection(), `${config.queuePrefix}:envdata`, others);
    const writer = new FactWriter(app.db, { archiveRaw: config.ingest.archiveRaw });
    this.batcher = new LandingBatcher(writer, {
      maxBatch: Math.max(1, Math.min(32, options.concurrency)),
      maxWaitMs: 15,
    });
    this.processor = createIngestChunkProcessor({
      db: app.db,
      client: this.client,
      land: (landing) => this.batcher.land(landing),
      budget,
      logger,
      maxAttempts: config.worker.maxAttempts,
      refetchAttempts: config.ingest.refetchAttempts,
      refetchDelayMs: config.ingest.refetchDelayMs,
      baseUrl: config.service.baseUrl,
      speciesRisk: config.ingest.speciesRisk,
      pauseAll: (ms) => pauseAll(ms),
      dispatch: (chunkIds) => this.feeder.add(chunkIds),
    });
    const pauseAll = async (ms: number): Promise<never> => {
      await this.worker.rateLimit(ms);
      throw Worker.RateLimitError();
    };
    const snapshots = createFetchSnapshotProcessor({
      db: app.db,
      client: this.client,
      species: new SpeciesIds(),
      logger,
      speciesRisk: config.ingest.speciesRisk,
      pauseAll,
    });
    this.worker = app.queues.worker<IngestJobData | SnapshotJobData, IngestOutcome | number>(
      QUEUE_NAMES.ingest,
      (job: Job<IngestJobData | SnapshotJobData>, token?: string) =>
        job.name === SNAPSHOT_JOB_NAME
          ? snapshots(job as Job<SnapshotJobData>)
          : this.processor.process(job as Job<IngestJobData>, token),
      {
        concurrency: options.concurrency,
        // `envdata status` lists the workers connected by this name.
        name: workerName(options.concurrency),
        limiter: queueLimiter(limiter),
        lockDuration: config.worker.jobLockMs,
        stalledInterval: Math.max(1_000, Math.floor(config.worker.jobLockMs / 2)),
        maxStalledCount: 3,
        autorun: false,
      },
    );
    this.worker.on('error', (error) => logger.warn({ err: error }, 'worker error'));
    this.worker.on('drained', () => void this.feed());
    this.timer = setInterval(() => void this.feed(), options.feedIntervalMs ?? 1_000);
  }

  /** Starts taking jobs (and feeding the queue) at once. */
  static start(app: App, options: IngestWorkerOptions): IngestWorker {
    const worker = new IngestWorker(app, options);
    void worker.worker
      .run()
      .catch((error: unknown) => app.logger.error({ err: error }, 'worker stopped'));
    void worker.feed();
    return worker;
  }

  /** Tops the queue up; errors are logged, not thrown (the next tick tries again). */
  async feed(): Promise<void> {
    if (this.closing) return;
    try {
      await this.feeder.topUp();
    } catch (error) {
      this.app.logger.warn({ err: error }, 'could not feed the queue; will try again');
    }
  }

  /**
   * Stops taking jobs, lets in-flight chunks finish for up to `timeoutMs`, then abandons the
   * rest (their jobs come back as stalled elsewhere; landing is idempotent) and closes.
   */
  close(timeoutMs = this.app.config.worker.shutdownTimeoutMs): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.timer);
      let timer: NodeJS.Timeout | undefined;
      const graceful = this.worker.close();
      const expired = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      if ((await Promise.race([graceful, expired])) === 'timeout') {
        this.app.logger.warn(
          { timeoutMs },
          'in-flight chunks did not finish in time; forcing close',
        );
        await this.worker.close(true);
      }
      clearTimeout(timer);
      await this.batcher.drain();
      await this.processor.close();
      await this.client.close();
    })();
    return this.closing;
  }
}
