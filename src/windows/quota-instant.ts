/** Seconds in a real day: a quota day of this length is the calendar's own. */
export const CALENDAR_DAY_SECONDS = 86_400;

const DAY_MS = 86_400_000;
/** Days in 400 Gregorian years: the calendar (weekdays, leap days, month lengths) repeats after them. */
const CYCLE_DAYS = 146_097;
/** Where short quota days are laid out: the first day of a 400-year cycle. */
const CYCLE_START_MS = Date.UTC(2000, 0, 1);

/**
 * The instant on the quota calendar at real instant `realMs` when quota days last `daySeconds`
 * real seconds (ENVDATA_QUOTA_DAY_SECONDS). With real days it is `realMs` itself. With shorter
 * ones, quota day k begins at the k-th whole multiple of `daySeconds` since the epoch and its
 * clock runs `86400 / daySeconds` times faster; the days are laid out on a 400-year Gregorian
 * cycle starting 2000-01-01, so months keep their calendar days (July 31 of them). Every process
 * on every host reads the same calendar without sharing anything.
 *
 * @example quotaInstant(5_000, 2) // 2000-01-03T12:00:00Z: day 2, half way through
 */
export function quotaInstant(realMs: number, daySeconds: number): number {
  if (daySeconds === CALENDAR_DAY_SECONDS) return realMs;
  const dayRealMs = daySeconds * 1_000;
  const dayIndex = Math.floor(realMs / dayRealMs);
  const within = realMs - dayIndex * dayRealMs;
  return (
    CYCLE_START_MS + (dayIndex % CYCLE_DAYS) * DAY_MS + within * (CALENDAR_DAY_SECONDS / daySeconds)
  );
}

/**
 * Real milliseconds from `realMs` until the quota calendar reads `quotaMs` (a later instant of
 * the same or the next quota day or month, as a reset is); 0 when it already has.
 */
export function realMsUntilQuota(quotaMs: number, realMs: number, daySeconds: number): number {
  const speed = CALENDAR_DAY_SECONDS / daySeconds;
  return Math.max(0, Math.ceil((quotaMs - quotaInstant(realMs, daySeconds)) / speed));
}
