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

/** The line about alerts waiting in the outbox, or `undefined` when there is nothing to say. */
export function formatUndeliveredAlerts(
  undelivered: number | null,
  targets: number,
): string | undefined {
  if (undelivered === null || (undelivered === 0 && targets === 0)) return undefined;
  if (targets === 0) {
    return `alerts: ${undelivered} undelivered event(s) in the outbox: set ENVDATA_NOTIFY_URL to receive them (docs/alerts.md)`;
  }
  return undelivered === 0
    ? `alerts: all delivered to ${targets} target(s)`
    : `alerts: ${undelivered} undelivered event(s) to ${targets} target(s); a worker, scheduler or serve delivers them (\`envdata notify test\` checks the targets)`;
}
