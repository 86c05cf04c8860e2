import { jitteredBackoffMs } from '../lifecycle/jittered-backoff.js';

/**
 * How long every worker pauses when the service throttles (`pause-all` in `OUTCOME_POLICY`):
 * what `Retry-After` asked for when it was sent and above 0, else a backoff with jitter that
 * grows with each throttled answer, never 0; either way at most `maxPauseMs`
 * (ENVDATA_MAX_PAUSE), after which the workers ask again. One per worker process, shared by
 * every job kind. (A `Retry-After` of more than a day never gets here: the client does not
 * believe it, `parseRetryAfter`.)
 *
 * The throttled answers of the calls that were already in flight when the first one paused every
 * worker belong to the same burst: they keep that pause rather than doubling it once per call.
 *
 * @example
 * ```ts
 * const throttle = new ThrottleBackoff(Math.random, config.worker.maxPauseMs);
 * throttle.pauseMs(OUTCOME_POLICY.RATE_LIMITED, error.retryAfterMs); // ~1 s, then ~2 s, ~4 s…
 * throttle.reset(); // a call got through
 * ```
 */
export class ThrottleBackoff {
  private throttled = 0;
  private pausedUntil = 0;

  constructor(
    private readonly random: () => number = Math.random,
    private readonly maxPauseMs: number = Number.POSITIVE_INFINITY,
  ) {}

  /** The pause for one throttled answer, under the outcome's `baseMs` and `capMs`. */
  pauseMs(
    policy: { readonly baseMs: number; readonly capMs: number },
    retryAfterMs: number | undefined,
    now = Date.now(),
  ): number {
    if (retryAfterMs !== undefined && retryAfterMs > 0)
      return Math.min(retryAfterMs, this.maxPauseMs);
    if (now < this.pausedUntil) return this.pausedUntil - now;
    const ms = Math.min(
      this.maxPauseMs,
      jitteredBackoffMs(policy.baseMs, this.throttled++, policy.capMs, this.random),
    );
    this.pausedUntil = now + ms;
    return ms;
  }

  /** A call got through: the next throttled answer starts again from the base. */
  reset(): void {
    this.throttled = 0;
  }
}
