import type { Config } from '../config/config.js';
import { monthCapOf, type QuotaLimitedBy, type QuotaWindowName } from '../config/quota.js';
import { quotaInstant, realMsUntilQuota } from '../windows/quota-instant.js';
import { quotaWindow } from '../windows/quota-window.js';
import type { QuotaCounter, QuotaPeriods } from './quota-counter.js';

/** One configured quota's state: calls used in the current window of the provider's calendar. */
export interface QuotaUsage {
  readonly window: QuotaWindowName;
  readonly used: number;
  /** The cap of the window: for the month the tighter of ENVDATA_QUOTA and the budget's calls. */
  readonly limit: number;
  readonly limitedBy: QuotaLimitedBy;
  /** Calls of the day only the sync may take (0 for the month). */
  readonly reserve: number;
  /** The real instant of the window's next reset, epoch ms. */
  readonly resetsAtMs: number;
  /**
   * The service itself refused the window (QUOTA_EXCEEDED) before envdata's cap: `used` is then
   * what envdata had counted when it did, and no call is made until the reset.
   */
  readonly refusedByService: boolean;
}

/** The quota settings the counters are read with. */
export type QuotaSettings = Config['quota'];

/** Whether any quota (or budget) is configured: without one nothing is counted. */
export function quotaConfigured(quota: QuotaSettings): boolean {
  return (
    quota.perDay !== undefined || quota.perMonth !== undefined || quota.budgetPerMonth !== undefined
  );
}

/** The real instant `window` next resets after `nowMs`, epoch ms. */
export function quotaResetMs(quota: QuotaSettings, window: QuotaWindowName, nowMs: number): number {
  const { daySeconds, timeZone } = quota;
  const w = quotaWindow(quotaInstant(nowMs, daySeconds), timeZone);
  const endMs = window === 'day' ? w.dayEndMs : w.monthEndMs;
  return nowMs + realMsUntilQuota(endMs, nowMs, daySeconds);
}

/** The day and month `nowMs` counts in, and how long their counts are kept. */
export function quotaPeriodsOf(quota: QuotaSettings, nowMs: number): QuotaPeriods {
  const { daySeconds, timeZone } = quota;
  const w = quotaWindow(quotaInstant(nowMs, daySeconds), timeZone);
  // Kept a day past the window's end (in real time), then forgotten.
  const dayMs = daySeconds * 1_000;
  return {
    day: w.day,
    month: w.month,
    dayKeepMs: realMsUntilQuota(w.dayEndMs, nowMs, daySeconds) + dayMs,
    monthKeepMs: realMsUntilQuota(w.monthEndMs, nowMs, daySeconds) + dayMs,
  };
}

/**
 * Each configured quota's use of its current window, read from the shared counters: what
 * `status`, the console's gauge, the metrics and a plan's cost build on. `[]` without a quota.
 */
export async function readQuotaUsage(
  counter: QuotaCounter,
  quota: QuotaSettings,
  nowMs = Date.now(),
): Promise<QuotaUsage[]> {
  if (!quotaConfigured(quota)) return [];
  const periods = quotaPeriodsOf(quota, nowMs);
  const [counted, refusals] = await Promise.all([counter.used(periods), counter.refusals(periods)]);
  // A window the service refused shows what envdata had counted, not the cap it was raised to.
  const used = { day: refusals.day ?? counted.day, month: refusals.month ?? counted.month };
  const month = monthCapOf(quota);
  const usage: QuotaUsage[] = [];
  if (quota.perDay !== undefined) {
    usage.push({
      window: 'day',
      used: used.day,
      limit: quota.perDay,
      limitedBy: 'quota',
      reserve: quota.syncReserve,
      resetsAtMs: quotaResetMs(quota, 'day', nowMs),
      refusedByService: refusals.day !== undefined,
    });
  }
  if (month !== undefined) {
    usage.push({
      window: 'month',
      used: used.month,
      limit: month.limit,
      limitedBy: month.by,
      reserve: 0,
      resetsAtMs: quotaResetMs(quota, 'month', nowMs),
      refusedByService: refusals.month !== undefined,
    });
  }
  return usage;
}
