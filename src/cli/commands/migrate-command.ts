import type { Command } from 'commander';
import { databaseNameOf } from '../../warehouse/database-url.js';
import type { CommandContext } from '../command-context.js';

export function registerMigrateCommand(program: Command, context: CommandContext): void {
  program
    .command('migrate')
    .description(
      'Create the database named in DATABASE_URL if missing and bring it to the latest migration',
    )
    .action(async () => {
      const config = context.config;
      const { prepareWarehouse } = await import('../../warehouse/prepare-warehouse.js');
      await context.withApp(
        async (app) => {
          const outcome = await prepareWarehouse(app);
          const name = databaseNameOf(config.databaseUrl);
          context.print(
            `${outcome.createdDatabase ? 'created database' : 'database'} ${name}: ` +
              `${outcome.applied.length} migration(s) applied, now at ${outcome.latest ?? '(none)'}`,
          );
        },
        config,
        { migrated: false },
      );
    });
}
