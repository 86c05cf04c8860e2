import type { Config } from '../config/config.js';
import { costOf, formatMoney } from '../config/money.js';
import type { QuotaCounter } from '../admission/quota-counter.js';
import { readQuotaUsage } from '../admission/quota-usage.js';

/** One window of the console's quota gauge, beside the rate chart. */
export interface QuotaGauge {
  readonly window: 'day' | 'month';
  readonly used: number;
  readonly limit: number;
  /** Whose cap `limit` is: ENVDATA_QUOTA, or the month's calls ENVDATA_BUDGET pays for. */
  readonly limitedBy: 'quota' | 'budget';
  /** Calls of the day only the sync may take. */
  readonly reserve: number;
  /** ISO 8601 instant of the window's reset. */
  readonly resetsAt: string;
  /** The service itself refused the window before `limit`: `used` is envdata's count then. */
  readonly refusedByService: boolean;
  /** What `used` cost, formatted (`€0.48`); `null` without ENVDATA_PRICE_PER_CALL. */
  readonly cost: string | null;
  /** ENVDATA_BUDGET formatted, on the month; `null` otherwise. */
  readonly budget: string | null;
}

/** The quota's windows as the console's gauge shows them; `[]` without a quota or budget. */
export async function readQuotaGauge(
  counter: QuotaCounter,
  config: Pick<Config, 'quota' | 'money'>,
): Promise<QuotaGauge[]> {
  const { price, budget } = config.money;
  const usage = await readQuotaUsage(counter, config.quota);
  return usage.map((u) => ({
    window: u.window,
    used: u.used,
    limit: u.limit,
    limitedBy: u.limitedBy,
    reserve: u.reserve,
    resetsAt: new Date(u.resetsAtMs).toISOString(),
    refusedByService: u.refusedByService,
    cost: price ? formatMoney(costOf(u.used, price)) : null,
    budget: u.window === 'month' && budget ? formatMoney(budget.amount) : null,
  }));
}
