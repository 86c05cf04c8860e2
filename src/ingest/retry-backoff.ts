import { isServiceError } from '../service/service-error.js';
import { jitteredBackoffMs } from '../lifecycle/jittered-backoff.js';

/**
 * How long a job whose call ended in a `retry` outcome (`OUTCOME_POLICY`: a 5xx, a timeout…)
 * waits before its next attempt: `baseMs` doubled per attempt made, with jitter, or longer when
 * the answer's `Retry-After` asked for longer (a 5xx may send one), never beyond `maxPauseMs`
 * (ENVDATA_MAX_PAUSE). A `Retry-After` of more than a day never gets here: the client does not
 * believe it (`parseRetryAfter`). The IngestWorker's BullMQ `backoffStrategy`.
 *
 * @example retryBackoffMs(2_000, 1, serverError, 900_000) // ~2 s, or what Retry-After asked
 */
export function retryBackoffMs(
  baseMs: number,
  attemptsMade: number,
  error: unknown,
  maxPauseMs: number,
  random: () => number = Math.random,
): number {
  const backoff = Math.min(
    maxPauseMs,
    jitteredBackoffMs(baseMs, Math.max(0, attemptsMade - 1), Number.POSITIVE_INFINITY, random),
  );
  const asked = isServiceError(error) ? error.retryAfterMs : undefined;
  return asked === undefined ? backoff : Math.max(backoff, Math.min(asked, maxPauseMs));
}
