/** The doubling is capped at 2^12 times the base, so a long outage cannot overflow it. */
const MAX_DOUBLINGS = 12;

/**
 * `baseMs` doubled `times` times (at most 12), capped at `capMs`, then jittered to between half
 * and one and a half of that, so workers that waited together do not all call again together.
 */
export function jitteredBackoffMs(
  baseMs: number,
  times: number,
  capMs = Number.POSITIVE_INFINITY,
  random: () => number = Math.random,
): number {
  return Math.round(
    Math.min(capMs, baseMs * 2 ** Math.min(times, MAX_DOUBLINGS)) * (0.5 + random()),
  );
}
