import type { Uses } from '../app/app-resources.js';
import { isEnvdataError } from '../errors/envdata-error.js';
import { planCost, type PlanCost, type PlanUse } from '../planner/plan-cost.js';
import { quotaConfigured, readQuotaUsage } from '../queue/quota-usage.js';

/**
 * The cost of a plan of `calls` (`planCost`) with this month's use read from the shared quota
 * counters. A dry run needs no queue: when the counters do not answer, the month's use is
 * unknown (`monthUsedCalls` undefined) and the plan is costed as if nothing were spent.
 */
export async function readPlanCost(
  app: Uses<'config' | 'queues'>,
  calls: number,
  use: PlanUse,
  now = Date.now(),
): Promise<PlanCost> {
  const { config } = app;
  let usage: Awaited<ReturnType<typeof readQuotaUsage>> | undefined = [];
  if (quotaConfigured(config.quota)) {
    try {
      await app.queues.assertAnswers();
      usage = await readQuotaUsage(app.queues.quotaCounter(), config.quota, now);
    } catch (error) {
      if (!isEnvdataError(error)) throw error;
      usage = undefined;
    }
  }
  return planCost(calls, use, config, usage, now);
}
