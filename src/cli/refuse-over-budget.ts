import type { Uses } from '../runtime/app-resources.js';
import type { PlanCost, PlanUse } from '../planner/plan-cost.js';
import { overBudgetMessage } from './format-plan-cost.js';
import { readPlanCost } from './read-plan-cost.js';
import { usageError } from './usage-error.js';

/** What a command is about to spend, as its refusal names it. */
export interface Spending {
  /** The subject of the refusal: `this backfill`, `this sync`, `applying envdata.yaml`. */
  readonly what: string;
  /** The first advice of the refusal, how to make it cost less: `Narrow it (--from/--to, --location)`. */
  readonly narrow?: string;
  /** A sync may take the day's reserve (`PlanUse`); every other command may not. */
  readonly use?: PlanUse;
  /** The new calls it would make: asked only when there is a budget to check them against. */
  readonly calls: () => Promise<number>;
}

/**
 * The money guard of every command that spends (`backfill`, `sync --now`, `apply`, `retry`): with
 * ENVDATA_BUDGET set and no `--allow-over-budget`, a plan whose cost, plus the month's spending,
 * plus the calls unfinished runs still plan (`readPlanCost`), goes over the budget is refused
 * (exit 2, `overBudgetMessage`) before anything is written. Allowed over it, the command starts
 * and its calls stop at the budget (the month's cap of budget ÷ price calls) until the month resets.
 * Returns the cost it checked (`overBudget` when allowed over it), `undefined` without a budget.
 */
export async function refuseOverBudget(
  app: Uses<'config' | 'db' | 'queues'>,
  spending: Spending,
  allowOverBudget: boolean | undefined,
): Promise<PlanCost | undefined> {
  if (!app.config.money.budget) return undefined;
  const cost = await readPlanCost(app, await spending.calls(), spending.use ?? 'other');
  if (cost.overBudget && !allowOverBudget) {
    throw usageError(overBudgetMessage(spending.what, cost, spending.narrow));
  }
  return cost;
}
