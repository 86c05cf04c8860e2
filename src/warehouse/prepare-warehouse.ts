import type { Kysely } from 'kysely';
import type { Logger } from '../logging/create-logger.js';
import { ensureDatabase } from './ensure-database.js';
import { readLockFunctionFence } from './fence-lock-functions.js';
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
  await warnOfOpenLockFunctions(app, outcome.applied.includes(FENCE_MIGRATION));
  return { ...outcome, createdDatabase };
}

/** The migration that revokes the advisory lock and large object functions from PUBLIC. */
const FENCE_MIGRATION = '2026_11_26_0022_fence_lock_functions';

/**
 * Says, once (when the fence migration ran as a role that could not revoke), that readers can
 * still take envdata's locks.
 */
async function warnOfOpenLockFunctions(
  app: { readonly db: Kysely<Database>; readonly logger: Logger },
  fencedNow: boolean,
): Promise<void> {
  if (!fencedNow) return;
  const fence = await readLockFunctionFence(app.db);
  if (fence.open.length > 0) {
    app.logger.warn(
      { open: fence.open.length },
      'this role may not revoke the advisory lock and large object functions from PUBLIC (only a superuser may): envdata_bi can still take locks envdata waits for; run `envdata bi-role` once as a superuser (docs/warehouse.md, "Locks and large objects")',
    );
  }
}
