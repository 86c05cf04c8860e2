/** A command that spends, as its over-budget note names it. */
export type SpendingCommand = 'backfill' | 'sync --now' | 'apply' | 'retry';

/**
 * The line under a plan over the budget, saying what `command` does with it: `refused` without
 * `--allow-over-budget` (said by a dry run and `plan`), or `started` with it, held at the budget
 * (`budgetCalls` a month, ENVDATA_BUDGET ÷ ENVDATA_PRICE_PER_CALL) until the month resets.
 */
export function formatOverBudgetNote(
  command: SpendingCommand,
  state: 'refused' | 'started',
  budgetCalls: number | undefined,
): string {
  if (state === 'refused') {
    const verb = command.split(' ')[0];
    return `${command} would be refused (over the budget): pass --allow-over-budget to ${verb} anyway`;
  }
  return (
    `over the budget, started with --allow-over-budget: it stops at the budget (${budgetCalls ?? '?'} calls a month) ` +
    'and waits with "budget (month)" until the month resets'
  );
}
