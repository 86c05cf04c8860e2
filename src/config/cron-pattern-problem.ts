import { CronExpressionParser } from 'cron-parser';

/** A cron pattern: 5 fields (minute … weekday), 6 with seconds first, or a macro (`@daily`). */
const CRON_SHAPE = /^((\S+\s+){4,5}\S+|@(yearly|annually|monthly|weekly|daily|hourly))$/;

/** The nightly sync re-reads ENVDATA_SYNC_LOOKBACK each time it runs: never more than hourly. */
const MIN_GAP_MS = 3_600_000;

/** Firings looked at to find the shortest gap between two (irregular patterns: `0,5 * * * *`). */
const FIRINGS_CHECKED = 48;

/**
 * Why a cron pattern cannot schedule the sync, or `undefined` when it can. The pattern is read
 * as BullMQ's `getNextMillis` reads it (its `cron-parser`, the version BullMQ pins, in UTC, as
 * `SyncScheduler` schedules it), so what passes here is what the scheduler accepts: `61 2 * * *`
 * fails now, with the parser's words, instead of when the scheduler starts. Not through BullMQ
 * itself: every command validates its configuration, and `envdata --help` should not load a
 * queue library to do so. A pattern that never fires, or fires more often
 * than once an hour, is refused too.
 *
 * @example cronPatternProblem('61 2 * * *') // 'must be a cron pattern … (Constraint error, got value 61 …)'
 */
export function cronPatternProblem(pattern: string): string | undefined {
  const usage = 'must be a cron pattern such as "0 2 * * *" (minute hour day month weekday, UTC)';
  if (!CRON_SHAPE.test(pattern.trim())) return usage;
  const firings: number[] = [];
  let from = Date.now();
  try {
    for (let i = 0; i < FIRINGS_CHECKED; i++) {
      const next = nextFiring(pattern, from);
      if (next === undefined) break;
      firings.push(next);
      from = next;
    }
  } catch (error) {
    return `${usage} (${error instanceof Error ? error.message : String(error)})`;
  }
  if (firings.length === 0) return `${usage}: this one never fires`;
  const gaps = firings.slice(1).map((at, i) => at - firings[i]!);
  const shortest = Math.min(...gaps);
  if (shortest < MIN_GAP_MS) {
    return `fires every ${Math.round(shortest / 1000)} s at times; each sync re-reads ENVDATA_SYNC_LOOKBACK, so it may run at most once an hour (e.g. "0 2 * * *")`;
  }
  return undefined;
}

/** BullMQ's `getNextMillis` for a pattern: the next firing after `from`, `undefined` past the last. */
function nextFiring(pattern: string, from: number): number | undefined {
  const interval = CronExpressionParser.parse(pattern, { currentDate: new Date(from), tz: 'UTC' });
  try {
    return interval.next().getTime();
  } catch {
    return undefined;
  }
}
