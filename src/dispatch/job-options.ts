import type { JobSchedulerTemplateOptions, JobsOptions } from 'bullmq';
import type { Config } from '../config/config.js';
import { INGEST_JOB_NAME, type IngestJobData } from './ingest-job.js';
import { SNAPSHOT_JOB_NAME, type SnapshotJobData } from './snapshot-job.js';

// The one builder of BullMQ job options in envdata: ids, attempts, backoff, priority and what
// Redis keeps of a finished job. Postgres holds the truth about every job's work (the ledger,
// the snapshots), so Redis keeps none of the jobs that call the service once they finish.

/** How a job that calls the service is retried (ENVDATA_MAX_ATTEMPTS, ENVDATA_RETRY_BASE_MS). */
export type JobRetry = Pick<Config['worker'], 'maxAttempts' | 'retryBaseMs'>;

/** One job as `Queue.addBulk` takes it. */
export interface JobSpec<Data> {
  readonly name: string;
  readonly data: Data;
  readonly opts: JobsOptions;
}

/** BullMQ priority of backfill jobs: behind the sync's unprioritized ones. */
export const BACKFILL_JOB_PRIORITY = 100;

/** One job id per chunk, so dispatching a chunk twice is a no-op in BullMQ. */
export function ingestJobId(chunkId: number): string {
  return `chunk-${chunkId}`;
}

/** One job id per snapshot of a sync, so a sync queues each product of a location once. */
export function snapshotJobId(data: SnapshotJobData): string {
  return `snapshot-${data.runId}-${data.locationId}-${data.dataset}-${data.product}`;
}

/**
 * The BullMQ backoff type of the jobs that call the service: exponential with jitter from the
 * job's `delay`, or what the failed answer's `Retry-After` asked when longer (a 5xx may send
 * one), within ENVDATA_MAX_PAUSE. A custom type (BullMQ's builtin `exponential` cannot read the
 * error): the worker of the ingest queue computes it (`retryBackoffMs`, its `backoffStrategy`).
 */
export const RETRY_BACKOFF_TYPE = 'envdata-retry';

/**
 * A job that calls the service: `retry` outcomes (`OUTCOME_POLICY`) run it again after an
 * exponential backoff with jitter from `retryBaseMs` (or the answer's `Retry-After`), up to
 * `maxAttempts`; gone from Redis once finished.
 */
function callJobOptions(retry: JobRetry): JobsOptions {
  return {
    attempts: retry.maxAttempts,
    backoff: { type: RETRY_BACKOFF_TYPE, delay: retry.retryBaseMs },
    removeOnComplete: true,
    removeOnFail: true,
  };
}

/**
 * The job of one chunk (id `chunk-<id>`). Urgent chunks (a sync) get no priority, which BullMQ
 * serves before every prioritized (backfill) job.
 */
export function chunkJob(
  chunk: { readonly chunkId: number; readonly urgent: boolean },
  retry: JobRetry,
): JobSpec<IngestJobData> {
  return {
    name: INGEST_JOB_NAME,
    data: { chunkId: chunk.chunkId },
    opts: {
      ...callJobOptions(retry),
      jobId: ingestJobId(chunk.chunkId),
      ...(chunk.urgent ? {} : { priority: BACKFILL_JOB_PRIORITY }),
    },
  };
}

/** The job of one snapshot of a sync (id `snapshot-<run>-<location>-<dataset>-<product>`). */
export function snapshotJob(data: SnapshotJobData, retry: JobRetry): JobSpec<SnapshotJobData> {
  return {
    name: SNAPSHOT_JOB_NAME,
    data,
    opts: { ...callJobOptions(retry), jobId: snapshotJobId(data) },
  };
}

/**
 * Each firing of the nightly sync's schedule: one attempt (a sync that meets an outage waits it
 * out and goes back without using it); the last 50 failed firings stay in Redis to be looked at.
 */
export function syncFiringOptions(): JobSchedulerTemplateOptions {
  return { removeOnComplete: true, removeOnFail: 50 };
}
