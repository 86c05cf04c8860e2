import { tz } from '@date-fns/tz';
// One module each, not the package's index: the index loads all of date-fns (some 860
// modules), which every command that opens the database would pay at start-up.
import { addDays } from 'date-fns/addDays';
import { addMonths } from 'date-fns/addMonths';
import { format } from 'date-fns/format';
import { startOfDay } from 'date-fns/startOfDay';
import { startOfMonth } from 'date-fns/startOfMonth';

/** The day and the calendar month an instant falls in, as a provider resetting at `timeZone`'s midnight counts them. */
export interface QuotaWindow {
  /** The local date, `YYYY-MM-DD`. */
  readonly day: string;
  /** Local midnight that began the day, epoch ms. */
  readonly dayStartMs: number;
  /** The next local midnight (23 or 25 hours later across a DST change), epoch ms. */
  readonly dayEndMs: number;
  /** The local month, `YYYY-MM`. */
  readonly month: string;
  /** Local midnight of the month's first day, epoch ms. */
  readonly monthStartMs: number;
  /** Local midnight of the next month's first day, epoch ms. */
  readonly monthEndMs: number;
}

/**
 * The quota day and month of `instantMs` in the IANA `timeZone` (`UTC` for the usual provider):
 * days end at local midnight, months on the calendar month, never every 30 or 31 days.
 * `timeZone` must be valid (`isTimeZone`).
 *
 * @example quotaWindow(Date.parse('2024-07-01T12:34:00Z'), 'Pacific/Auckland').day // '2024-07-02'
 */
export function quotaWindow(instantMs: number, timeZone: string): QuotaWindow {
  const zone = { in: tz(timeZone) };
  const dayStart = startOfDay(instantMs, zone);
  const monthStart = startOfMonth(instantMs, zone);
  return {
    day: format(instantMs, 'yyyy-MM-dd', zone),
    dayStartMs: dayStart.getTime(),
    dayEndMs: addDays(dayStart, 1, zone).getTime(),
    month: format(instantMs, 'yyyy-MM', zone),
    monthStartMs: monthStart.getTime(),
    monthEndMs: addMonths(monthStart, 1, zone).getTime(),
  };
}
