import type { Job, Worker } from 'bullmq';
import type { Uses } from '../runtime/app-resources.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { workerName } from '../queue/worker-identity.js';
import { isLostJob } from '../queue/lost-job.js';
import { retryBackoffMs } from '../ingest/retry-backoff.js';
import type { IngestQueueData, IngestQueueResult } from './route-job.js';

/** What the BullMQ worker is built around. */
export interface QueueWorkerOptions {
  readonly concurrency: number;
  /** BullMQ's limiter (`Admission.limiter`). */
  readonly limiter: { max: number; duration: number };
  /** Runs one job. */
  readonly process: (job: Job<IngestQueueData>, token?: string) => Promise<IngestQueueResult>;
  /** Tops the queue up; called whenever the queue drains. */
  readonly feed: () => void;
}

/**
 * The BullMQ worker on the ingest queue, under the shared rate limit, announced by name for
 * `envdata status`, and not running until its `run()`. Its errors are logged once each, quietly
 * when they are an outage or a lost job the ledger already covers.
 */
export function createQueueWorker(
  app: Uses<'config' | 'logger' | 'outages' | 'queues'>,
  options: QueueWorkerOptions,
): Worker<IngestQueueData, IngestQueueResult> {
  // Taken now: the app's monitor is not reachable once the app closed, and errors come after.
  const { config, logger, outages } = app;
  const worker = app.queues.worker<IngestQueueData, IngestQueueResult>(
    QUEUE_NAMES.ingest,
    options.process,
    {
      concurrency: options.concurrency,
      // `envdata status` lists the workers connected by this name.
      name: workerName(options.concurrency),
      limiter: options.limiter,
      settings: {
        // `retry` outcomes: the job's backoff, or the answer's Retry-After when longer.
        backoffStrategy: (attemptsMade, _type, error, job) =>
          retryBackoffMs(
            backoffDelayOf(job?.opts.backoff) ?? config.worker.retryBaseMs,
            attemptsMade,
            error,
            config.worker.maxPauseMs,
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
  worker.on('lockRenewalFailed', (jobIds: string[]) => {
    for (const jobId of jobIds) {
      renewalsFailed.add(`could not renew lock for job ${jobId}`);
      logger.warn(
        { jobId },
        'could not renew the lock of a job in flight: it may run elsewhere too; its chunk lands once (the ledger)',
      );
    }
  });
  worker.on('error', (error) => {
    if (renewalsFailed.delete(error.message)) return;
    if (outages.report(error)) return;
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
  worker.on('drained', options.feed);
  return worker;
}

/** The base delay a job's BullMQ `backoff` option gives (a number, or `{ delay }`). */
function backoffDelayOf(
  backoff: number | { readonly delay?: number } | undefined,
): number | undefined {
  return typeof backoff === 'number' ? backoff : backoff?.delay;
}
