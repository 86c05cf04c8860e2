import type { Config } from '../config/config.js';
import { costOf, type Money } from '../config/money.js';
import { monthCapOf } from '../config/quota.js';
import type { OpenRunCalls } from '../ledger/open-run-calls.js';
import { quotaInstant, realMsUntilQuota } from '../windows/quota-instant.js';
import { quotaWindow } from '../windows/quota-window.js';
import { allowanceWindows, type WindowCount } from './allowance-windows.js';
import { estimateDurationMs } from './estimate-plan.js';
import { expectedDuration, type ExpectedDuration } from './expected-duration.js';

/** What bounds how long a plan takes: the rate, or the window of a quota or the budget. */
export type PlanBound = 'rate' | 'quota (day)' | 'quota (month)' | 'budget (month)';

/** Whose plan it is: a sync may take the day's reserve, a backfill may not. */
export type PlanUse = 'sync' | 'other';

/** A window's use as the shared counters read it (`QuotaUsage`, src/admission/quota-usage.ts). */
export type WindowUse = WindowCount;

/** What a plan of `calls` costs in money and in days of the plan's quotas. */
export interface PlanCost {
  readonly calls: number;
  /** ENVDATA_PRICE_PER_CALL; `undefined` without one (then no amount is known). */
  readonly price: Money | undefined;
  /** `calls` × price, exact. */
  readonly cost: Money | undefined;
  /** ENVDATA_BUDGET, per calendar month. */
  readonly budget: Money | undefined;
  /** Calls counted this month so far; `undefined` when the counters could not be read. */
  readonly monthUsedCalls: number | undefined;
  /** What those calls cost. */
  readonly spentThisMonth: Money | undefined;
  /** The calls unfinished runs still plan (`openRunCalls`), and how many runs those are. */
  readonly openRuns: OpenRunCalls;
  /** What those calls will cost. */
  readonly plannedByOpenRuns: Money | undefined;
  /**
   * What is left of the budget this month once the unfinished runs make the calls they still
   * plan (never below 0).
   */
  readonly budgetLeft: Money | undefined;
  /**
   * The month's spending, plus what the unfinished runs still plan, plus this plan's cost is
   * above the budget. (A plan of no call is never over it.)
   */
  readonly overBudget: boolean;
  /**
   * Days (of the quota's calendar) the calls take under the rate, the day's quota less the
   * reserve (a backfill's), and the month's quota or budget; `undefined` when nothing bounds them.
   */
  readonly days: number | undefined;
  /** The bound that makes it take that long. */
  readonly boundBy: PlanBound | undefined;
  /** Calls a day this plan may take: the day's quota, less the reserve for a backfill. */
  readonly callsPerDay: number | undefined;
  /**
   * How long the calls take from now (`expectedDuration`): at the rate, within what is left of
   * today's allowance, the rest after the resets. The one duration dry runs and plans print.
   */
  readonly expected: ExpectedDuration;
}

/** Days in an average Gregorian month: months after the current one, estimated. */
const MONTH_DAYS = 365.2425 / 12;

/**
 * The cost of a plan of `calls` and how many days it takes: the longest of calls / R (the rate
 * limits), calls / (daily quota − reserve) (the sync may use the reserve too), and, when the
 * calls do not fit in what is left of the month's quota or budget, the days to the month's
 * reset plus the months after it. Money is exact (`Money`, nano-units).
 */
export function planCost(
  calls: number,
  use: PlanUse,
  config: Pick<Config, 'quota' | 'money' | 'rateLimits'>,
  usage: readonly WindowUse[] | undefined,
  nowMs: number,
  openRuns: OpenRunCalls = { runs: 0, calls: 0 },
): PlanCost {
  const { price, budget } = config.money;
  const quota = config.quota;
  const monthUsedCalls =
    usage === undefined ? undefined : (usage.find((u) => u.window === 'month')?.used ?? 0);
  const cost = price && costOf(calls, price);
  const spentThisMonth =
    price && monthUsedCalls !== undefined ? costOf(monthUsedCalls, price) : undefined;
  const plannedByOpenRuns = price && costOf(openRuns.calls, price);
  // Money already spent, and money the unfinished runs will spend: neither is left for this plan.
  const committed = (spentThisMonth?.nanos ?? 0n) + (plannedByOpenRuns?.nanos ?? 0n);
  const budgetNanos = budget?.amount.nanos;
  const overBudget =
    budgetNanos !== undefined &&
    cost !== undefined &&
    calls > 0 &&
    committed + cost.nanos > budgetNanos;
  const budgetLeft =
    budget === undefined
      ? undefined
      : {
          nanos: budget.amount.nanos > committed ? budget.amount.nanos - committed : 0n,
          currency: budget.amount.currency,
        };

  const dayMs = quota.daySeconds * 1_000;
  const bounds: { bound: PlanBound; days: number }[] = [];
  if (config.rateLimits.length > 0) {
    bounds.push({ bound: 'rate', days: estimateDurationMs(calls, config.rateLimits) / dayMs });
  }
  const callsPerDay =
    quota.perDay === undefined
      ? undefined
      : quota.perDay - (use === 'sync' ? 0 : quota.syncReserve);
  if (callsPerDay !== undefined) bounds.push({ bound: 'quota (day)', days: calls / callsPerDay });
  const month = monthCapOf(quota);
  if (month !== undefined) {
    const left = Math.max(0, month.limit - (monthUsedCalls ?? 0));
    if (calls > left) {
      const w = quotaWindow(quotaInstant(nowMs, quota.daySeconds), quota.timeZone);
      const toReset = realMsUntilQuota(w.monthEndMs, nowMs, quota.daySeconds) / dayMs;
      bounds.push({
        bound: `${month.by} (month)`,
        days: toReset + ((calls - left) / month.limit) * MONTH_DAYS,
      });
    }
  }
  const longest = calls === 0 ? undefined : bounds.sort((a, b) => b.days - a.days)[0];
  return {
    calls,
    price,
    cost,
    budget: budget?.amount,
    monthUsedCalls,
    spentThisMonth,
    openRuns,
    plannedByOpenRuns,
    budgetLeft,
    overBudget,
    days: calls === 0 ? 0 : longest?.days,
    boundBy: longest?.bound,
    callsPerDay,
    expected: expectedDuration({
      calls,
      rules: config.rateLimits,
      nowMs,
      ...allowanceWindows(quota, usage, use, nowMs),
    }),
  };
}
