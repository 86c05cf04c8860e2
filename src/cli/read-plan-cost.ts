import { admissionStores } from '../admission/admission-stores.js';
import type { Uses } from '../runtime/app-resources.js';
import { isEnvdataError } from '../errors/envdata-error.js';
import { openRunCalls } from '../ledger/open-run-calls.js';
import { planCost, type PlanCost, type PlanUse } from '../planner/plan-cost.js';
import { quotaConfigured, readQuotaUsage } from '../admission/quota-usage.js';

/**
 * The cost of a plan of `calls` (`planCost`) with this month's use read from the quota counters
 * (`envdata.quota_usage`, on either queue backend) and, with a budget, the calls unfinished runs
 * still plan (`openRunCalls`; but `exceptRunId`'s, the plan's own run once started). When the
 * counters cannot be read, the month's use is unknown (`monthUsedCalls` undefined) and the plan
 * is costed as if nothing were spent.
 */
export async function readPlanCost(
  app: Uses<'config' | 'db' | 'queues'>,
  calls: number,
  use: PlanUse,
  options: { readonly exceptRunId?: number; readonly now?: number } = {},
): Promise<PlanCost> {
  const { config } = app;
  const now = options.now ?? Date.now();
  let usage: Awaited<ReturnType<typeof readQuotaUsage>> | undefined = [];
  if (quotaConfigured(config.quota)) {
    try {
      usage = await readQuotaUsage(admissionStores(app.queues).quota, config.quota, now);
    } catch (error) {
      if (!isEnvdataError(error)) throw error;
      usage = undefined;
    }
  }
  const open = config.money.budget ? await openRunCalls(app.db, options.exceptRunId) : undefined;
  return planCost(calls, use, config, usage, now, open);
}
