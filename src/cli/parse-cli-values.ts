import { DATASET_NAMES, type Dataset } from '../types.js';
import { usageError } from './usage-error.js';

/** Largest value of a Postgres `integer`: run and location ids never exceed it. */
export const MAX_DATABASE_ID = 2_147_483_647;

/**
 * A whole number from a flag or argument, written with digits only (no sign, spaces, exponent or
 * hex: `Number()` would read `0x10` as 16), within `[min, max]`. `what` names the kind of value
 * in the message: `--port must be a port number: a whole number from 0 to 65535 (got "0x50")`.
 */
export function parseWholeNumber(
  flag: string,
  value: string,
  range: { readonly min: number; readonly max: number },
  what = 'a whole number',
): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    const kind = what === 'a whole number' ? what : `${what}: a whole number`;
    throw usageError(`${flag} must be ${kind} from ${range.min} to ${range.max} (got "${value}")`);
  }
  return n;
}

/**
 * A run id (`envdata retry 12`, `resume 12`, `status 12`): a whole number from 1 to the largest
 * Postgres integer, so a typo is a usage error, never a database error.
 */
export function parseRunId(value: string): number {
  return parseWholeNumber('RUN', value, { min: 1, max: MAX_DATABASE_ID }, 'a run id such as 12');
}

/** A dataset's name (`pollen`, `weather`) or `all` → datasets. */
export function parseDatasetOption(value: string): Dataset[] {
  if (value === 'all') return [...DATASET_NAMES];
  if ((DATASET_NAMES as readonly string[]).includes(value)) return [value as Dataset];
  throw usageError(`--dataset must be ${DATASET_NAMES.join(', ')} or all (got "${value}")`);
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

/**
 * The `--from`/`--to` of every command that takes them (`backfill`, `rebuild`): each a whole UTC
 * hour (`parseUtcHourOption`), `from` before `to`. An absent flag stays absent. One function for
 * them all, so each command refuses the same bound with the same message (exit 2).
 */
export function parseHourBounds(options: { readonly from: string; readonly to: string }): {
  from: Date;
  to: Date;
};
export function parseHourBounds(options: { readonly from?: string; readonly to?: string }): {
  from?: Date;
  to?: Date;
};
export function parseHourBounds(options: { readonly from?: string; readonly to?: string }): {
  from?: Date;
  to?: Date;
} {
  const from = options.from === undefined ? undefined : parseUtcHourOption('--from', options.from);
  const to = options.to === undefined ? undefined : parseUtcHourOption('--to', options.to);
  assertOrdered(from, to);
  return { ...(from && { from }), ...(to && { to }) };
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
