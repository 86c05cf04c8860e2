import type { Command } from 'commander';
import { collectStatus, type EnvdataStatus } from '../../status/collect-status.js';
import type { CommandContext } from '../command-context.js';

export function registerStatusCommand(program: Command, context: CommandContext): void {
  program
    .command('status')
    .description('Show whether Postgres and Redis answer, pending migrations and queue depths')
    .option('--json', 'print the status as JSON')
    .action(async (options: { json?: boolean }) => {
      const status = await context.withApp((app) => collectStatus(app), context.config, {
        migrated: false,
      });
      context.print(options.json ? JSON.stringify(status, null, 2) : formatStatus(status));
      if (!status.postgres.ok || !status.redis.ok) context.exitCode = 1;
    });
}

export function formatStatus(status: EnvdataStatus): string {
  const lines: string[] = [];
  const pg = status.postgres;
  lines.push(`postgres  ${pg.url}  ${pg.ok ? 'ok' : `DOWN — ${pg.problem}`}`);
  if (pg.pendingMigrations?.length) {
    lines.push(`  ${pg.pendingMigrations.length} pending migration(s): run \`envdata migrate\``);
  } else if (pg.ok) {
    lines.push('  migrations up to date');
  }
  const redis = status.redis;
  lines.push(`redis     ${redis.url}  ${redis.ok ? 'ok' : `DOWN — ${redis.problem}`}`);
  for (const [queue, counts] of Object.entries(redis.queues ?? {})) {
    const parts = Object.entries(counts).map(([state, n]) => `${state} ${n}`);
    lines.push(`  queue ${queue}: ${parts.join(', ')}`);
  }
  return lines.join('\n');
}
