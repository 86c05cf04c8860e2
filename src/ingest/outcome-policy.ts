import type { ServiceErrorCode } from '../errors/error-code.js';
import { isServiceError } from '../service/service-error.js';

/** The codes a job decides on: every code of the service client, and `INTERNAL` for the rest. */
export type PolicyCode = ServiceErrorCode | 'INTERNAL';

/**
 * What a job does when a call ends with a code. Each job kind reads it its own way (the
 * interpreters are `createIngestChunkProcessor` and `createFetchSnapshotProcessor`):
 *
 * - `pause-all`: every worker pauses for `Retry-After` when the service sent one, else for a
 *   backoff with jitter from `baseMs`, doubling per throttled answer up to `capMs`
 *   (`ThrottleBackoff`); the job goes back without using an attempt.
 * - `stop-run`: no retry can fix it; the run stops at once (a snapshot retries through its
 *   attempts: it has no run of its own to stop).
 * - `block-dataset`: the chunk fails and the run stops fetching that dataset.
 * - `split`: the chunk is split into halves, down to one hour; an hour that still gets this
 *   answer fails.
 * - `release`: the call was abandoned (shutdown); the work goes back untouched.
 * - `land-empty`: the answer holds nothing: a chunk lands zero rows and is done, a snapshot
 *   stores nothing.
 * - `retry`: again after an exponential backoff with jitter (the job's options), up to the
 *   attempts, then the chunk fails; a `ServiceError` that says no retry can help (`retryable:
 *   false`, a closed client's NETWORK) fails at once.
 * - `fail`: the chunk fails with code and message; the run goes on.
 *
 * `wrongAddressSign`: one such answer is the service speaking about a place; most answers of a
 * run being such is a wrong `ENVDATA_BASE_URL` (`WrongAddressGuard`).
 */
export type Outcome = (
  | { readonly kind: 'pause-all'; readonly baseMs: number; readonly capMs: number }
  | { readonly kind: 'stop-run' }
  | { readonly kind: 'block-dataset' }
  | { readonly kind: 'split' }
  | { readonly kind: 'release' }
  | { readonly kind: 'land-empty' }
  | { readonly kind: 'retry' }
  | { readonly kind: 'fail' }
) & { readonly wrongAddressSign?: true };

export type OutcomeKind = Outcome['kind'];

/**
 * The one retry/outcome table of envdata, keyed by code (the status table of the upstream spec:
 * what the pipeline must do on each answer). Every job kind reads it; a code added to the
 * service client without an entry here does not compile.
 */
export const OUTCOME_POLICY = {
  // 200 "Data not available!": not an error, never retried for ever.
  NO_DATA: { kind: 'land-empty' },
  // 206: the trimmed rows are kept; the chunk is fetched again, as an attempt.
  PARTIAL: { kind: 'retry' },
  BAD_REQUEST: { kind: 'fail' },
  RANGE_TOO_LONG: { kind: 'split' },
  UNAUTHORIZED: { kind: 'stop-run' },
  FORBIDDEN: { kind: 'block-dataset' },
  // 404: outside coverage, or not the service at all.
  NOT_COVERED: { kind: 'land-empty', wrongAddressSign: true },
  // 422: the quota resets in its own time, minutes to a day.
  QUOTA_EXCEEDED: { kind: 'pause-all', baseMs: 60_000, capMs: 3_600_000 },
  RATE_LIMITED: { kind: 'pause-all', baseMs: 1_000, capMs: 60_000 },
  SERVER_ERROR: { kind: 'retry' },
  TIMEOUT: { kind: 'retry' },
  NETWORK: { kind: 'retry' },
  // A body that is not the service's: a format change, or another server at the base address.
  MALFORMED_RESPONSE: { kind: 'retry', wrongAddressSign: true },
  // A shorter window means a smaller answer too: split like a range the service refuses.
  RESPONSE_TOO_LARGE: { kind: 'split' },
  ABORTED: { kind: 'release' },
  INVALID_QUERY: { kind: 'fail' },
  // Anything else (a bug, Postgres refusing a write): worth another attempt.
  INTERNAL: { kind: 'retry' },
} as const satisfies Record<PolicyCode, Outcome>;

/**
 * The code of whatever a call threw (`INTERNAL` unless the service client raised it), what to do
 * about it (the table's entry, except that a retry the error itself rules out fails), and the
 * wait `Retry-After` asked for, if any.
 */
export function outcomeOf(error: unknown): {
  readonly code: PolicyCode;
  readonly outcome: Outcome;
  readonly retryAfterMs: number | undefined;
} {
  if (!isServiceError(error)) {
    return { code: 'INTERNAL', outcome: OUTCOME_POLICY.INTERNAL, retryAfterMs: undefined };
  }
  const outcome: Outcome = OUTCOME_POLICY[error.code];
  return {
    code: error.code,
    outcome: outcome.kind === 'retry' && !error.retryable ? { ...outcome, kind: 'fail' } : outcome,
    retryAfterMs: error.retryAfterMs,
  };
}
