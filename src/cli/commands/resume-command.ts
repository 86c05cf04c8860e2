import { runExists } from '../../ledger/reopen-runs.js';
import type { Command } from 'commander';
import { EnvdataError } from '../../errors/envdata-error.js';
import { resumeRuns, retryFailedChunks } from '../../runs/resume-runs.js';
import type { CommandContext } from '../command-context.js';
import { parseRunId } from '../parse-cli-values.js';

export function registerResumeCommands(program: Command, context: CommandContext): void {
  program
    .command('resume [run]')
    .description(
      'Dispatch every unfinished chunk of running runs again (after losing Redis), and restart stopped runs (after fixing the API key) and paused ones',
    )
    .action(async (run: string | undefined) => {
      const runId = run === undefined ? undefined : parseRunId(run);
      void context.config;
      const outcome = await context.withApp((app) => resumeRuns(app, runId));
      if (runId !== undefined && !outcome.runs.includes(runId)) {
        throw new EnvdataError(
          'CONFLICT',
          `run ${runId} is not running, paused or stopped: see \`envdata status\``,
        );
      }
      context.print(
        `${outcome.runs.length} run(s) running (${outcome.runs.join(', ') || 'none'}); ${outcome.dispatched} job(s) dispatched`,
      );
    });

  program
    .command('retry <run>')
    .description('Re-queue only the failed chunks of a run')
    .action(async (run: string) => {
      const runId = parseRunId(run);
      void context.config;
      const n = await context.withApp(async (app) => {
        if (!(await runExists(app.db, runId)))
          throw new EnvdataError('NOT_FOUND', `there is no run ${runId}: see \`envdata status\``);
        return retryFailedChunks(app, runId);
      });
      context.print(`${n} failed chunk(s) of run ${runId} re-queued; workers pick them up`);
    });
}
