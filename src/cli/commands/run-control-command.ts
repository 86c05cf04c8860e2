import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { parseRunId } from '../parse-cli-values.js';
import { usageError } from '../usage-error.js';

/** `envdata cancel RUN` and `envdata pause RUN`: stop spending on a run. */
export function registerRunControlCommands(program: Command, context: CommandContext): void {
  program
    .command('cancel <run>')
    .description(
      'Cancel a run: its chunks not yet fetched are dropped, chunks in flight finish, what landed stays',
    )
    .action(async (run: string) => {
      const runId = parseRunId(run);
      void context.config;
      const [{ runExists }, { cancelRunAndJobs }] = await Promise.all([
        import('../../ledger/reopen-runs.js'),
        import('../../runs/control-run.js'),
      ]);
      const outcome = await context.withApp(
        async (app) => {
          if (!(await runExists(app.db, runId))) {
            throw usageError(`there is no run ${runId}: see \`envdata status\``);
          }
          return cancelRunAndJobs(app, runId);
        },
        context.config,
        { queue: true },
      );
      if (!outcome)
        throw usageError(`run ${runId} has already finished: see \`envdata status ${runId}\``);
      context.print(
        `run ${runId} cancelled: ${outcome.dropped.length} chunk(s) not fetched were dropped` +
          (outcome.inFlight > 0 ? `, ${outcome.inFlight} in flight will finish and land` : '') +
          '; what landed stays (`envdata status ' +
          runId +
          '`)',
      );
    });

  program
    .command('pause <run>')
    .description('Pause a running run: no chunk of it starts until `envdata resume RUN`')
    .action(async (run: string) => {
      const runId = parseRunId(run);
      void context.config;
      const [{ runExists }, { pauseRunning }] = await Promise.all([
        import('../../ledger/reopen-runs.js'),
        import('../../runs/control-run.js'),
      ]);
      const paused = await context.withApp(async (app) => {
        if (!(await runExists(app.db, runId))) {
          throw usageError(`there is no run ${runId}: see \`envdata status\``);
        }
        return pauseRunning(app, runId);
      });
      if (!paused) throw usageError(`run ${runId} is not running: see \`envdata status ${runId}\``);
      context.print(
        `run ${runId} paused: chunks in flight finish, no other starts; continue with \`envdata resume ${runId}\`, or drop the rest with \`envdata cancel ${runId}\``,
      );
    });
}
