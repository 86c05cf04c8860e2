import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { parseRunId } from '../parse-cli-values.js';

export function registerStatusCommand(program: Command, context: CommandContext): void {
  program
    .command('status [run]')
    .description(
      'Show whether Postgres and Redis answer, pending migrations, queue depths, recent runs and the freshness of each location (stale first); with RUN, that run with its failures by error code',
    )
    .option('--json', 'print one JSON document instead (shapes: docs/json-output.md)')
    .option(
      '--check',
      'exit 1 when Postgres or Redis is down, migrations are pending, or a location lags more than ENVDATA_FRESHNESS_MAX_LAG (for cron and alerting)',
    )
    .action(async (run: string | undefined, options: { json?: boolean; check?: boolean }) => {
      const runId = run === undefined ? undefined : parseRunId(run);
      const { printStatus } = await import('../print-status.js');
      await printStatus(context, runId, options);
    });
}
