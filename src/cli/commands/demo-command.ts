import type { Command } from 'commander';
import { collectStatus } from '../../status/collect-status.js';
import { prepareWarehouse } from '../../warehouse/prepare-warehouse.js';
import type { CommandContext } from '../command-context.js';
import { formatStatus } from './status-command.js';

export function registerDemoCommand(program: Command, context: CommandContext): void {
  program
    .command('demo')
    .description('Run envdata end to end on the built-in defaults: migrate, then report status')
    .action(async () => {
      await context.withApp(async (app) => {
        const outcome = await prepareWarehouse(app);
        context.print(`warehouse ready at ${outcome.latest ?? '(none)'}`);
        context.print(formatStatus(await collectStatus(app)));
      });
    });
}
