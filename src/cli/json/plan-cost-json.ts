import { z } from 'zod';
import { decimalString, type Money } from '../../config/money.js';
import type { PlanCost } from '../../planner/plan-cost.js';
import { count } from './json-document.js';

/** An exact amount of money as a decimal string (`"0.0012"`, `"300"`): never a float. */
export const decimalJson = z
  .string()
  .regex(/^\d+(\.\d+)?$/)
  .describe('an exact decimal amount, as a string');

const amount = (money: Money): string => decimalString(money.nanos);

/** What a plan costs and how long the quotas make it take (`planCost`), for the dry runs. */
export const planCostJson = {
  money: z
    .object({
      currency: z.string().describe('ISO 4217 code of ENVDATA_PRICE_PER_CALL, e.g. `EUR`'),
      pricePerCall: decimalJson.describe('ENVDATA_PRICE_PER_CALL’s amount'),
      cost: decimalJson.describe('`calls` × the price, exact'),
      budget: z
        .object({
          perMonth: decimalJson.describe('ENVDATA_BUDGET’s amount per calendar month'),
          spentThisMonth: decimalJson
            .nullable()
            .describe(
              'what the calls counted this month cost; `null` when the counters could not be read',
            ),
          plannedByUnfinishedRuns: decimalJson.describe(
            'what the calls unfinished runs (planning, running, paused) still plan will cost: counted against the budget like the month’s spending',
          ),
          unfinishedRuns: count.describe('the unfinished runs with calls still planned'),
          left: decimalJson.describe(
            'what is left of this month’s budget once the unfinished runs make the calls they still plan',
          ),
          overBudget: z
            .boolean()
            .describe(
              'the month’s spending plus `plannedByUnfinishedRuns` plus `cost` is above the budget: a `backfill`, `sync --now` or `apply` of this plan exits 2 unless `--allow-over-budget`',
            ),
        })
        .nullable()
        .describe('`null` without ENVDATA_BUDGET'),
    })
    .nullable()
    .describe('`null` without ENVDATA_PRICE_PER_CALL'),
  quotaDays: z
    .object({
      days: z
        .number()
        .nonnegative()
        .describe('days of the quota’s calendar the calls take (an estimate; may be fractional)'),
      boundBy: z
        .enum(['rate', 'quota (day)', 'quota (month)', 'budget (month)'])
        .describe(
          'what makes it take that long: the rate limits, the daily quota less the sync’s reserve (a sync may use the reserve), or the month’s quota or budget',
        ),
      callsPerDay: count
        .nullable()
        .describe(
          'calls a day the plan may take under ENVDATA_QUOTA; `null` without a daily quota',
        ),
    })
    .nullable()
    .describe('`null` when neither a rate limit nor a quota bounds the calls'),
};

/** `cost` as the dry runs' JSON says it. */
export function toPlanCostJson(cost: PlanCost): {
  money: z.infer<typeof planCostJson.money>;
  quotaDays: z.infer<typeof planCostJson.quotaDays>;
} {
  const { price, budget, budgetLeft } = cost;
  return {
    money:
      price === undefined || cost.cost === undefined
        ? null
        : {
            currency: price.currency,
            pricePerCall: amount(price),
            cost: amount(cost.cost),
            budget:
              budget === undefined || budgetLeft === undefined
                ? null
                : {
                    perMonth: amount(budget),
                    spentThisMonth: cost.spentThisMonth ? amount(cost.spentThisMonth) : null,
                    plannedByUnfinishedRuns: amount(
                      cost.plannedByOpenRuns ?? { nanos: 0n, currency: price.currency },
                    ),
                    unfinishedRuns: cost.openRuns.runs,
                    left: amount(budgetLeft),
                    overBudget: cost.overBudget,
                  },
          },
    quotaDays:
      cost.days === undefined || cost.boundBy === undefined
        ? null
        : { days: cost.days, boundBy: cost.boundBy, callsPerDay: cost.callsPerDay ?? null },
  };
}
