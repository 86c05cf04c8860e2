import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';

export function registerDemoCommand(program: Command, context: CommandContext): void {
  program
    .command('demo')
    .description(
      'Run envdata end to end against the built-in simulator: migrate, register 4 locations, backfill 3 months of pollen and 10 years of weather, show a query (on a local PostgreSQL, and with the queue in it, when nothing answers at DATABASE_URL or REDIS_URL)',
    )
    .action(async () => {
      const { runDemoCommand } = await import('../run-demo-command.js');
      await runDemoCommand(context);
    });
}
