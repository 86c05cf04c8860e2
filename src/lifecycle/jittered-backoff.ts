import { backoffMs } from './backoff.js';

/**
 * `baseMs` doubled `times` times (at most 12), capped at `capMs`, then jittered to between half
 * and one and a half of that, so workers that waited together do not all call again together:
 * the throttle pause, a job's retry and a 206's refetch.
 */
export function jitteredBackoffMs(
  baseMs: number,
  times: number,
  capMs = Number.POSITIVE_INFINITY,
  random: () => number = Math.random,
): number {
  return backoffMs(times, { baseMs, capMs, maxDoublings: 12, jitter: 0.5, random });
}
