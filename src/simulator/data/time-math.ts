/** Time arithmetic of the generators, on epoch hours, without Date objects in the hot loops. */

export const HOUR_MS = 3_600_000;
export const HOUR_S = 3_600;
const MEAN_YEAR_DAYS = 365.2425;

/** Day of the year in [0, 365.24) for an epoch hour (within a day of the calendar's). */
export function dayOfYear(epochHour: number): number {
  const days = epochHour / 24;
  return days - Math.floor(days / MEAN_YEAR_DAYS) * MEAN_YEAR_DAYS;
}

/** Local mean solar hour in [0, 24) at longitude `lng` for an epoch hour. */
export function solarHour(epochHour: number, lng: number): number {
  const h = (epochHour % 24) + lng / 15;
  return h - Math.floor(h / 24) * 24;
}

/** Circular distance in days between two days of the year. */
export function dayDistance(a: number, b: number): number {
  const d = Math.abs(a - b) % MEAN_YEAR_DAYS;
  return d > MEAN_YEAR_DAYS / 2 ? MEAN_YEAR_DAYS - d : d;
}

/**
 * Sine of the sun's elevation at a latitude, day of year and solar hour (Cooper's declination).
 * Positive by day.
 */
export function sunElevationSine(lat: number, doy: number, hour: number): number {
  const declination = 0.409105 * Math.sin((2 * Math.PI * (284 + doy)) / 365);
  const phi = (lat * Math.PI) / 180;
  const hourAngle = ((hour - 12) * Math.PI) / 12;
  return (
    Math.sin(phi) * Math.sin(declination) +
    Math.cos(phi) * Math.cos(declination) * Math.cos(hourAngle)
  );
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
let cachedDay = Number.NaN;
let cachedDayPrefix = '';

/**
 * `Date.toISOString()` of a whole epoch second, e.g. `2024-11-10T21:00:00.000Z`. Records of one
 * answer share their day, so the date part is cached and only the time is formatted: several
 * times faster than a `Date` per record.
 */
export function isoOfEpochSeconds(seconds: number): string {
  const day = Math.floor(seconds / 86_400);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedDayPrefix = new Date(day * 86_400_000).toISOString().slice(0, 11);
  }
  const rest = seconds - day * 86_400;
  const h = Math.floor(rest / 3_600);
  const m = Math.floor((rest % 3_600) / 60);
  return `${cachedDayPrefix}${TWO_DIGITS[h]}:${TWO_DIGITS[m]}:${TWO_DIGITS[rest % 60]}.000Z`;
}
