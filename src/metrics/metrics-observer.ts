import type { Dataset } from '../types.js';

/** Why a worker waited before calling the service (`envdata_rate_limit_waits_total{reason}`). */
export type RateLimitWaitReason =
  /** The shared call budget (ENVDATA_RATE_LIMIT's rules beyond the queue limiter) was spent. */
  | 'budget'
  /** The service answered 429: every worker waits out the pause. */
  | 'throttled';

/**
 * How one chunk job ended (`envdata_chunk_duration_seconds{outcome}`), a bounded set:
 * `landed` (done), `refetch` (hours missing, fetched again later), `throttled` / `budget` (put
 * back to wait), `split`, `retry`, `failed`, `released` (shutdown, or a wrong address),
 * `stopped` (the run stopped: a refused key), `blocked` (a forbidden dataset), `error`
 * (something else was thrown: Postgres or Redis down).
 */
export type ChunkJobOutcome =
  | 'landed'
  | 'refetch'
  | 'throttled'
  | 'budget'
  | 'split'
  | 'retry'
  | 'failed'
  | 'released'
  | 'stopped'
  | 'blocked'
  | 'error';

/**
 * What the hot paths tell the process's metrics, through the app's resources (`observers`):
 * plain calls, cheap and never throwing, made once per call, batch or job, never per row. The
 * Prometheus registry (`EnvdataMetrics`) is one observer, the per-minute call counts of
 * `envdata.api_call_minute` another.
 */
export interface MetricsObserver {
  /** One request to the service: its endpoint's logical name, and its status or `"error"`. */
  serviceCall(endpoint: string, status: string): void;
  /**
   * A landing committed: fact rows of `dataset` it inserted or changed, and records it set
   * aside in quarantine.
   */
  landed(dataset: Dataset, rows: number, quarantined: number): void;
  /** A chunk job that claimed its chunk ended after `seconds`. */
  chunkFinished(dataset: Dataset, outcome: ChunkJobOutcome, seconds: number): void;
  /** A job was put back to wait for the rate limit. */
  rateLimitWait(reason: RateLimitWaitReason): void;
  /**
   * An answer of the service (history or a snapshot product: `source`) had the shape `shape`
   * (its digest, `src/upstream`). Optional: observers that do not count shapes leave it out.
   */
  answerShape?(dataset: Dataset, source: string, shape: string): void;
}

/** An observer that does nothing: metrics off. */
export const NO_METRICS: MetricsObserver = Object.freeze({
  serviceCall: () => undefined,
  landed: () => undefined,
  chunkFinished: () => undefined,
  rateLimitWait: () => undefined,
});
