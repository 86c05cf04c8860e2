import { z } from 'zod';
import type { Config } from '../../config/config.js';
import { costOf, decimalString } from '../../config/money.js';
import type { QuotaUsage } from '../../admission/quota-usage.js';
import { count, isoTimestamp } from './json-document.js';
import { decimalJson } from './plan-cost-json.js';

/** The quota's use in `envdata status --json`. */
export const quotaUsageJson = z
  .object({
    timeZone: z.string().describe('ENVDATA_QUOTA_TIMEZONE: whose midnight resets the windows'),
    currency: z
      .string()
      .nullable()
      .describe('ISO 4217 code of ENVDATA_PRICE_PER_CALL; `null` without a price'),
    pricePerCall: decimalJson.nullable().describe('ENVDATA_PRICE_PER_CALL’s amount, or `null`'),
    budgetPerMonth: decimalJson.nullable().describe('ENVDATA_BUDGET’s amount, or `null`'),
    windows: z
      .array(
        z.object({
          window: z.enum(['day', 'month']).describe('the calendar window'),
          usedCalls: count.describe('calls counted in the current window, every worker’s'),
          limitCalls: count.describe(
            'the window’s cap: ENVDATA_QUOTA’s, or for the month the budget’s calls (budget ÷ price) when tighter',
          ),
          limitedBy: z
            .enum(['quota', 'budget'])
            .describe('whose cap `limitCalls` is: ENVDATA_QUOTA or ENVDATA_BUDGET'),
          reserveCalls: count.describe(
            'calls of the day only the sync may take (ENVDATA_SYNC_RESERVE); 0 for the month',
          ),
          resetsAt: isoTimestamp.describe('when the window next resets'),
          refusedByService: z
            .boolean()
            .describe(
              'the service itself refused the window (quota exceeded) before `limitCalls`: `usedCalls` is what envdata had counted then; check the plan with the provider or other users of the key',
            ),
          usedCost: decimalJson
            .nullable()
            .describe('what `usedCalls` cost at the price; `null` without a price'),
        }),
      )
      .describe('one entry per configured window (day, month); `[]` without a quota or budget'),
  })
  .nullable()
  .describe(
    'the quota’s and budget’s use; `null` when its counters (a table of the warehouse) cannot be read',
  );

export type QuotaUsageJson = z.infer<typeof quotaUsageJson>;

/** `usage` as `status --json` reports it. */
export function toQuotaUsageJson(
  usage: readonly QuotaUsage[] | null,
  config: Pick<Config, 'quota' | 'money'>,
): QuotaUsageJson {
  if (usage === null) return null;
  const { price, budget } = config.money;
  return {
    timeZone: config.quota.timeZone,
    currency: price?.currency ?? null,
    pricePerCall: price ? decimalString(price.nanos) : null,
    budgetPerMonth: budget ? decimalString(budget.amount.nanos) : null,
    windows: usage.map((u) => ({
      window: u.window,
      usedCalls: u.used,
      limitCalls: u.limit,
      limitedBy: u.limitedBy,
      reserveCalls: u.reserve,
      resetsAt: new Date(u.resetsAtMs).toISOString(),
      refusedByService: u.refusedByService,
      usedCost: price ? decimalString(costOf(u.used, price).nanos) : null,
    })),
  };
}
