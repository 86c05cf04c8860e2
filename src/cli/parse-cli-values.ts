import { DATASETS, type Dataset } from '../types.js';
import { usageError } from './usage-error.js';

/** `pollen`, `weather` or `all` → datasets. */
export function parseDatasetOption(value: string): Dataset[] {
  if (value === 'all') return [...DATASETS];
  if ((DATASETS as readonly string[]).includes(value)) return [value as Dataset];
  throw usageError(`--dataset must be pollen, weather or all (got "${value}")`);
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2}))?$/;

/**
 * A UTC instant from `YYYY-MM-DD` or `YYYY-MM-DD hh:mm:ss` (the service's format). Impossible
 * dates (2023-02-30) are refused, not rolled over.
 */
export function parseUtcDateOption(flag: string, value: string): Date {
  const m = DATE_PATTERN.exec(value.trim());
  if (!m) {
    throw usageError(`${flag} must be YYYY-MM-DD or "YYYY-MM-DD hh:mm:ss" in UTC (got "${value}")`);
  }
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1).map((part) => part ?? '0') as string[];
  const date = new Date(Date.UTC(+y!, +mo! - 1, +d!, +h, +mi, +s));
  if (
    date.getUTCFullYear() !== +y! ||
    date.getUTCMonth() !== +mo! - 1 ||
    date.getUTCDate() !== +d! ||
    date.getUTCHours() !== +h ||
    date.getUTCMinutes() !== +mi ||
    date.getUTCSeconds() !== +s
  ) {
    throw usageError(`${flag} "${value}" is not a real date and time`);
  }
  return date;
}

/**
 * A UTC instant on a whole hour: envdata plans, fetches and records whole UTC hours, so a bound
 * inside an hour is refused (never silently widened or narrowed), with the two hours around it.
 */
export function parseUtcHourOption(flag: string, value: string): Date {
  const date = parseUtcDateOption(flag, value);
  const hour = 3_600_000;
  if (date.getTime() % hour !== 0) {
    const floor = new Date(Math.floor(date.getTime() / hour) * hour);
    const ceil = new Date(floor.getTime() + hour);
    const show = (d: Date) => `"${d.toISOString().slice(0, 19).replace('T', ' ')}"`;
    throw usageError(
      `${flag} "${value}" is not a whole UTC hour: envdata works in whole hours; use ${show(floor)} or ${show(ceil)}`,
    );
  }
  return date;
}

/** Checks `from` < `to` for a pair of date flags. */
export function assertOrdered(from: Date | undefined, to: Date | undefined): void {
  if (from && to && from.getTime() >= to.getTime()) {
    throw usageError(
      `--from (${from.toISOString()}) must be before --to (${to.toISOString()}); the range is [from, to)`,
    );
  }
}

/** Accumulates a repeatable option. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
