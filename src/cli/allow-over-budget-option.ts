import { Option } from 'commander';

/**
 * `--allow-over-budget`, the same on every command that spends (`refuseOverBudget`): start
 * although the plan costs more than is left of the month's budget.
 */
export function allowOverBudgetOption(): Option {
  return new Option(
    '--allow-over-budget',
    'start it although it costs more than is left of ENVDATA_BUDGET this month: it stops at the budget and waits for the month to reset',
  );
}
