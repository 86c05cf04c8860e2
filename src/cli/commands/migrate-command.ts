import type { Command } from 'commander';
import { databaseNameOf } from '../../warehouse/database-url.js';
import type { ShareUnitRepair } from '../../ingest/repair-share-units.js';
import type { CommandContext } from '../command-context.js';

export function registerMigrateCommand(program: Command, context: CommandContext): void {
  program
    .command('migrate')
    .description(
      'Create the database named in DATABASE_URL if missing and bring it to the latest migration',
    )
    .action(async () => {
      const config = context.config;
      const [{ prepareWarehouse }, { makePendingRepairs }] = await Promise.all([
        import('../../warehouse/prepare-warehouse.js'),
        import('../../ingest/repair-share-units.js'),
      ]);
      await context.withApp(
        async (app) => {
          const outcome = await prepareWarehouse(app);
          const name = databaseNameOf(config.databaseUrl);
          context.print(
            `${outcome.createdDatabase ? 'created database' : 'database'} ${name}: ` +
              `${outcome.applied.length} migration(s) applied, now at ${outcome.latest ?? '(none)'}`,
          );
          const { shareUnits } = await makePendingRepairs(app.db, app.logger);
          if (shareUnits) {
            context.print(describeShareUnitRepair(shareUnits));
            if (shareUnits.unreadable > 0) context.exitCode = 1;
          }
        },
        config,
        { migrated: false },
      );
    });
}

/** What the share-unit repair did, in one line that says what is left and what to run. */
export function describeShareUnitRepair(repair: ShareUnitRepair): string {
  const byField = Object.entries(repair.repairedByField)
    .filter(([, n]) => n > 0)
    .map(([field, n]) => `${field} ${n}`)
    .join(', ');
  return (
    `share units, now decided per field: ${repair.repaired} weather value(s) repaired ` +
    `from ${repair.answers} archived answer(s), 0 calls${byField ? ` (${byField})` : ''}` +
    (repair.stillSetAside > 0
      ? `; ${repair.stillSetAside} record(s) still have a share set aside (its unit unknown: ` +
        'see `envdata status`; `envdata rebuild --dataset weather` fills them once an answer tells it)'
      : '; none set aside') +
    (repair.unreadable > 0
      ? `; ${repair.unreadable} archived answer(s) unreadable, left as they were (see the log)`
      : '')
  );
}
