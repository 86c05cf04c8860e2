import type { Config } from '../config/config.js';
import { monthCapOf } from '../config/quota.js';
import { quotaResetMs, type QuotaUsage } from '../admission/quota-usage.js';
import type { AllowanceWindow } from './expected-duration.js';

/** A window's use as the counters read it: `QuotaUsage`, or only its count. */
export type WindowCount = Pick<QuotaUsage, 'window' | 'used'> &
  Partial<Pick<QuotaUsage, 'resetsAtMs' | 'refusedByService'>>;

/** Days in an average Gregorian month: the months after the current one, estimated. */
const MONTH_DAYS = 365.2425 / 12;

/**
 * The day's and the month's allowance (`expectedDuration`'s windows) for calls of `use` (a
 * backfill leaves the sync's reserve), as the counters read them now (`usage`; a window the
 * service refused has no room). `usage` undefined: nothing counted yet. `held`: a window a run is
 * known to wait on until its reset (a run's hold), which then has no room left until `untilMs`.
 */
export function allowanceWindows(
  quota: Config['quota'],
  usage: readonly WindowCount[] | undefined,
  use: 'sync' | 'other',
  nowMs: number,
  held?: { readonly window: 'day' | 'month'; readonly untilMs: number },
): { day?: AllowanceWindow; month?: AllowanceWindow } {
  const dayMs = quota.daySeconds * 1_000;
  const windowOf = (window: 'day' | 'month', cap: number, name: string): AllowanceWindow => {
    const u = usage?.find((x) => x.window === window);
    const spent = u?.refusedByService === true || held?.window === window;
    return {
      cap,
      used: spent ? cap : (u?.used ?? 0),
      resetsAtMs:
        held?.window === window
          ? held.untilMs
          : (u?.resetsAtMs ?? quotaResetMs(quota, window, nowMs)),
      lengthMs: window === 'day' ? dayMs : MONTH_DAYS * dayMs,
      name,
    };
  };
  const month = monthCapOf(quota);
  return {
    ...(quota.perDay !== undefined && {
      day: windowOf(
        'day',
        quota.perDay - (use === 'sync' ? 0 : quota.syncReserve),
        'the daily quota (ENVDATA_QUOTA)',
      ),
    }),
    ...(month !== undefined && {
      month: windowOf(
        'month',
        month.limit,
        month.by === 'budget' ? "the month's budget (ENVDATA_BUDGET)" : "the month's quota",
      ),
    }),
  };
}
