/** How a wait grows after each failure: `baseMs` doubled per failure, capped, maybe jittered. */
export interface BackoffShape {
  readonly baseMs: number;
  /** The longest wait. Default: none. */
  readonly capMs?: number;
  /** Doublings stop after this many, so a long outage cannot overflow. Default 12. */
  readonly maxDoublings?: number;
  /** Spread: 0.5 scales the wait by a factor in [0.5, 1.5), 0.2 by one in [0.8, 1.2). Default 0. */
  readonly jitter?: number;
  readonly random?: () => number;
}

/**
 * The wait after `times` earlier failures (0 for the first): `baseMs · 2^times`, the doubling
 * stopped at `maxDoublings`, capped at `capMs`, then jittered, in whole milliseconds. The one
 * exponential backoff of envdata: the throttle pause, a job's retry, a webhook's retry, and the
 * pauses between failed connects to Postgres and to Redis.
 *
 * @example
 * backoffMs(3, { baseMs: 250, capMs: 5_000 }); // 2_000
 */
export function backoffMs(times: number, shape: BackoffShape): number {
  const { baseMs, capMs = Number.POSITIVE_INFINITY, maxDoublings = 12, jitter = 0 } = shape;
  const ms = Math.min(capMs, baseMs * 2 ** Math.min(Math.max(0, times), maxDoublings));
  if (jitter === 0) return Math.round(ms);
  return Math.round(ms * (1 - jitter + 2 * jitter * (shape.random ?? Math.random)()));
}
