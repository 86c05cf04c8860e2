import type { Command } from 'commander';
import { requireApiKey } from '../../config/require-api-key.js';
import { EnvdataError } from '../../errors/envdata-error.js';
import { allowOverBudgetOption } from '../allow-over-budget-option.js';
import type { CommandContext } from '../command-context.js';
import { parseConcurrency, parseRunId } from '../parse-cli-values.js';

interface WaitOptions {
  wait?: boolean;
  concurrency?: string;
}

interface RetryOptions extends WaitOptions {
  allowOverBudget?: boolean;
}

export function registerResumeCommands(program: Command, context: CommandContext): void {
  program
    .command('resume [run]')
    .description(
      'Dispatch every unfinished chunk of running runs again (after losing Redis), and restart stopped runs (after fixing the API key) and paused ones; without RUN, also end a pause of every worker after a 429 (see `envdata status`)',
    )
    .option('--wait', 'work them off here and wait, with progress (as `backfill --wait` does)')
    .option('--concurrency <n>', 'with --wait: chunks in flight in the local worker')
    .action(async (run: string | undefined, options: WaitOptions) => {
      const runId = run === undefined ? undefined : parseRunId(run);
      const concurrency = parseConcurrency(options.concurrency, context.config.worker.concurrency);
      if (options.wait) requireApiKey(context.config);
      const [{ resumeRuns }, { followRuns }, { formatDuration }] = await Promise.all([
        import('../../runs/resume-runs.js'),
        import('../follow-runs.js'),
        import('../../planner/estimate-plan.js'),
      ]);
      await context.withApp(
        async (app) => {
          const outcome = await resumeRuns(app, runId);
          if (runId !== undefined && !outcome.runs.includes(runId)) {
            throw new EnvdataError(
              'CONFLICT',
              `run ${runId} is not running, paused or stopped: see \`envdata status\``,
            );
          }
          if (outcome.pauseEndedMs > 0) {
            context.print(
              `the pause of every worker (${formatDuration(outcome.pauseEndedMs)} left) ended: workers take jobs again within 30 s`,
            );
          }
          context.print(
            `${outcome.runs.length} run(s) running (${outcome.runs.join(', ') || 'none'}); ${outcome.dispatched} job(s) dispatched` +
              (options.wait ? '' : '; workers (`envdata worker`) pick them up'),
          );
          if (options.wait) {
            await followRuns(app, context, outcome.runs, { localWorker: true, concurrency });
          }
        },
        context.config,
        { queue: true },
      );
    });

  program
    .command('retry <run>')
    .description('Re-queue only the failed chunks of a run')
    .option('--wait', 'work them off here and wait, with progress (as `backfill --wait` does)')
    .option('--concurrency <n>', 'with --wait: chunks in flight in the local worker')
    .addOption(allowOverBudgetOption())
    .action(async (run: string, options: RetryOptions) => {
      const runId = parseRunId(run);
      const concurrency = parseConcurrency(options.concurrency, context.config.worker.concurrency);
      if (options.wait) requireApiKey(context.config);
      const [
        { runExists },
        { retryFailedChunks },
        { followRuns },
        { runProgress },
        { refuseOverBudget },
        { formatOverBudgetNote },
      ] = await Promise.all([
        import('../../ledger/reopen-runs.js'),
        import('../../runs/resume-runs.js'),
        import('../follow-runs.js'),
        import('../../ledger/run-progress.js'),
        import('../refuse-over-budget.js'),
        import('../format-over-budget-note.js'),
      ]);
      await context.withApp(
        async (app) => {
          if (!(await runExists(app.db, runId))) {
            throw new EnvdataError('NOT_FOUND', `there is no run ${runId}: see \`envdata status\``);
          }
          // Each failed chunk re-queued is one call more, under the money guard of every command that spends.
          const failed = (await runProgress(app.db, runId))?.failed ?? 0;
          const spending = {
            what: `retrying the ${failed} failed chunk(s) of run ${runId}`,
            calls: () => Promise.resolve(failed),
          };
          const cost = await refuseOverBudget(app, spending, options.allowOverBudget);
          const n = await retryFailedChunks(app, runId);
          context.print(
            `${n} failed chunk(s) of run ${runId} re-queued` +
              (options.wait ? '' : '; workers (`envdata worker`) pick them up'),
          );
          if (n > 0 && cost?.overBudget) {
            const budgetCalls = app.config.quota.budgetPerMonth;
            context.print(`  ${formatOverBudgetNote('retry', 'started', budgetCalls)}`);
          }
          if (options.wait && n > 0) {
            await followRuns(app, context, [runId], { localWorker: true, concurrency });
          }
        },
        context.config,
        { queue: true },
      );
    });
}
