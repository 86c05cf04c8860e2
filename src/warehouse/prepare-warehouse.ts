import type { Kysely } from 'kysely';
import type { Logger } from '../logging/create-logger.js';
import { ensureDatabase } from './ensure-database.js';
import { migrateToLatest, type MigrationOutcome } from './migrate-to-latest.js';
import type { Database } from './schema.js';

export interface PrepareOutcome extends MigrationOutcome {
  readonly createdDatabase: boolean;
}

/** Creates the database if missing and migrates it to the latest version (`envdata migrate`). */
export async function prepareWarehouse(app: {
  readonly config: { readonly databaseUrl: string };
  readonly db: Kysely<Database>;
  readonly logger: Logger;
}): Promise<PrepareOutcome> {
  const createdDatabase = await ensureDatabase(app.config.databaseUrl);
  if (createdDatabase) app.logger.info('created the database named in DATABASE_URL');
  const outcome = await migrateToLatest(app.db, app.logger);
  return { ...outcome, createdDatabase };
}
