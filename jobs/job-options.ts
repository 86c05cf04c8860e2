import type { JobsOptions } from 'bullmq';

// What the job kinds of envdata share in their BullMQ options. Postgres holds the truth about
// every job's work (the ledger, the snapshots), so Redis keeps none of the jobs that call the
// service once they finish.

/**
 * How a job that calls the service is retried (ENVDATA_MAX_ATTEMPTS, ENVDATA_RETRY_BASE_MS):
 * the app's `config.worker` is one.
 */
export interface JobRetry {
  readonly maxAttempts: number;
  readonly retryBaseMs: number;
}

/** One job as `Queue.add` (name, data, opts) and `Queue.addBulk` take it. */
export interface JobSpec<Data> {
  readonly name: string;
  readonly data: Data;
  readonly opts: JobsOptions;
}

/**
 * The BullMQ backoff type of the jobs that call the service: exponential with jitter from the
 * job's `delay`, or what the failed answer's `Retry-After` asked when longer (a 5xx may send
 * one), within ENVDATA_MAX_PAUSE. A custom type (BullMQ's builtin `exponential` cannot read the
 * error): the worker of the ingest queue computes it (`retryBackoffMs`, its `backoffStrategy`).
 */
export const RETRY_BACKOFF_TYPE = 'envdata-retry';

/**
 * The options of a job that calls the service: `retry` outcomes (`OUTCOME_POLICY`) run it again
 * after an exponential backoff with jitter from `retryBaseMs` (or the answer's `Retry-After`),
 * up to `maxAttempts`; gone from Redis once finished.
 */
export function callJobOptions(retry: JobRetry): JobsOptions {
  return {
    attempts: retry.maxAttempts,
    backoff: { type: RETRY_BACKOFF_TYPE, delay: retry.retryBaseMs },
    removeOnComplete: true,
    removeOnFail: true,
  };
}
