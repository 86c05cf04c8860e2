import type { Command } from 'commander';
import { resumeRuns, retryFailedChunks } from '../../runs/resume-runs.js';
import type { CommandContext } from '../command-context.js';
import { usageError } from '../usage-error.js';

function parseRunId(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw usageError(`RUN must be a run id such as 12 (got "${value}")`);
  return Number(value);
}

export function registerResumeCommands(program: Command, context: CommandContext): void {
  program
    .command('resume [run]')
    .description(
      'Dispatch every unfinished chunk of running runs again (after losing Redis), and restart stopped runs (after fixing the API key)',
    )
    .action(async (run: string | undefined) => {
      const runId = parseRunId(run);
      const outcome = await context.withApp((app) => resumeRuns(app, runId), context.config, {
        queue: true,
      });
      if (runId !== undefined && !outcome.runs.includes(runId)) {
        throw usageError(`run ${runId} is not running or stopped: see \`envdata status\``);
      }
      context.print(
        `${outcome.runs.length} run(s) running (${outcome.runs.join(', ') || 'none'}); ${outcome.dispatched} job(s) dispatched`,
      );
    });

  program
    .command('retry <run>')
    .description('Re-queue only the failed chunks of a run')
    .action(async (run: string) => {
      const runId = parseRunId(run)!;
      const n = await context.withApp(
        async (app) => {
          const exists = await app.db
            .selectFrom('run')
            .select('run_id')
            .where('run_id', '=', runId)
            .executeTakeFirst();
          if (!exists) throw usageError(`there is no run ${runId}: see \`envdata status\``);
          return retryFailedChunks(app, runId);
        },
        context.config,
        { queue: true },
      );
      context.print(`${n} failed chunk(s) of run ${runId} re-queued; workers pick them up`);
    });
}
