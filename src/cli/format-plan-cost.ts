import type { RateLimitRule } from '../config/rate-limit.js';
import { formatMoney } from '../config/money.js';
import type { PlanCost } from '../planner/plan-cost.js';
import { SPENT_SINCE_NOTE } from './spent-since-note.js';
import { formatExpectedDuration } from './format-expected-duration.js';

/**
 * What a dry run says of a plan's cost and of how long it takes:
 * `cost: €2.80 (7000 calls at €0.0004 each)`, the budget left this month once the unfinished
 * runs make the calls they still plan (nothing for what is not configured), and the one
 * `expected duration` line (`formatExpectedDuration`), which knows today's allowance and the resets.
 */
export function formatPlanCost(cost: PlanCost, rules: readonly RateLimitRule[]): string[] {
  const lines: string[] = [];
  if (cost.price && cost.cost) {
    lines.push(
      `cost: ${formatMoney(cost.cost)} (${cost.calls} call(s) at ${formatMoney(cost.price)} each)`,
    );
  }
  if (cost.budget && cost.budgetLeft && cost.cost) {
    const spent =
      cost.spentThisMonth === undefined
        ? 'spent this month unknown (the quota counters did not answer)'
        : `${formatMoney(cost.spentThisMonth)} spent this month, ` +
          openRunsPart(cost) +
          `${formatMoney(cost.budgetLeft)} left`;
    lines.push(
      `budget: ${formatMoney(cost.budget)}/month (ENVDATA_BUDGET), ${spent}` +
        (cost.overBudget ? ` — this plan goes OVER it` : ': the plan fits'),
    );
    if (cost.spentThisMonth !== undefined) lines.push(`  (${SPENT_SINCE_NOTE})`);
  }
  lines.push(formatExpectedDuration(cost.expected, rules));
  return lines;
}

/** `€0.53 still planned by 1 unfinished run, `: what unfinished runs will spend, if anything. */
function openRunsPart(cost: PlanCost): string {
  if (cost.openRuns.calls === 0 || !cost.plannedByOpenRuns) return '';
  return `${formatMoney(cost.plannedByOpenRuns)} still planned by ${unfinishedRuns(cost.openRuns.runs)}, `;
}

/** `1 unfinished run`, `2 unfinished runs`. */
function unfinishedRuns(n: number): string {
  return n === 1 ? '1 unfinished run' : `${n} unfinished runs`;
}

/**
 * The exit-2 message of a plan over the budget (`refuseOverBudget`): what `what` would cost, what
 * counted against it (the month's spending and what unfinished runs still plan), and what to do,
 * `narrow` first (how to make this command cost less, when it can).
 */
export function overBudgetMessage(what: string, cost: PlanCost, narrow?: string): string {
  const amount = cost.cost ? formatMoney(cost.cost) : '?';
  const left = cost.budgetLeft ? formatMoney(cost.budgetLeft) : '?';
  const budget = cost.budget ? formatMoney(cost.budget) : '?';
  const open = cost.openRuns.calls > 0 && cost.plannedByOpenRuns;
  const counting = open
    ? `, counting ${cost.spentThisMonth ? formatMoney(cost.spentThisMonth) : 'an unknown amount'} spent this month and ` +
      `${formatMoney(cost.plannedByOpenRuns!)} still planned by ${unfinishedRuns(cost.openRuns.runs)}`
    : '';
  const advice = [
    ...(narrow ? [narrow] : []),
    'raise ENVDATA_BUDGET',
    ...(open ? ['cancel an unfinished run (`envdata status` lists them)'] : []),
    'or pass --allow-over-budget to start it anyway: it then stops at the budget and waits for the month to reset',
  ].join(', ');
  return (
    `${what} would cost ${amount}, beyond the ${left} left of this month's budget of ${budget} (ENVDATA_BUDGET)${counting}: ` +
    `nothing was written. ${advice.charAt(0).toUpperCase()}${advice.slice(1)}`
  );
}
