import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql, type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import { EnvdataError } from '../errors/envdata-error.js';
import { hasSqlState, SQLSTATE } from '../errors/pg-errors.js';
import type { Logger } from '../logging/create-logger.js';
import type { Database } from './schema.js';

/**
 * `migrations/` beside `src/`: the repository's under tsx, dist/migrations/ when compiled
 * (`npm run build` mirrors the repository's layout in dist/).
 */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations/', import.meta.url));

/**
 * `.ts` under tsx, `.js` compiled: the migrations are loaded as this module is, never both (a
 * folder holding both would list each migration twice).
 */
const MIGRATION_EXTENSION = path.extname(fileURLToPath(import.meta.url));

/** Table Kysely keeps its migration history in (schema `public`). */
const MIGRATION_TABLE = 'envdata_migration';
const MIGRATION_LOCK_TABLE = 'envdata_migration_lock';

/** Imports each `migrations/*.ts` (compiled: `*.js`) file by file URL, sorted by name. */
export class FolderMigrationProvider implements MigrationProvider {
  constructor(private readonly folder: string = MIGRATIONS_FOLDER) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await fs.readdir(this.folder))
      .filter((f) => path.extname(f) === MIGRATION_EXTENSION && !f.endsWith('.d.ts'))
      .sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      const module = (await import(pathToFileURL(path.join(this.folder, file)).href)) as Migration;
      migrations[path.basename(file, MIGRATION_EXTENSION)] = module;
    }
    return migrations;
  }
}

export interface MigrationOutcome {
  readonly applied: readonly string[];
  readonly latest: string | undefined;
}

/**
 * Brings the database to the latest migration. Safe when several processes migrate at once:
 * a session advisory lock serialises them, and the later ones find nothing left to do.
 */
export async function migrateToLatest(
  db: Kysely<Database>,
  logger: Logger,
  provider: MigrationProvider = new FolderMigrationProvider(),
): Promise<MigrationOutcome> {
  const log = logger.child({ component: 'migrate' });
  return db.connection().execute(async (connection) => {
    await takeMigrationLock(connection);
    try {
      const migrator = new Migrator({
        db: connection,
        provider,
        migrationTableName: MIGRATION_TABLE,
        migrationLockTableName: MIGRATION_LOCK_TABLE,
      });
      const { error, results = [] } = await migrator.migrateToLatest();
      for (const result of results) {
        if (result.status === 'Success') log.info({ migration: result.migrationName }, 'applied');
      }
      if (error) {
        const failed = results.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
        throw new EnvdataError(
          'MIGRATION_FAILED',
          `migration ${failed} failed: ${(error as Error).message ?? String(error)}; the database is left at the last good migration — fix the cause and run \`envdata migrate\` again`,
          { cause: error },
        );
      }
      const all = await migrator.getMigrations();
      const done = all.filter((m) => m.executedAt !== undefined);
      return {
        applied: results.filter((r) => r.status === 'Success').map((r) => r.migrationName),
        latest: done.at(-1)?.name,
      };
    } finally {
      await sql`select pg_advisory_unlock(hashtext('envdata.migrate'))`.execute(connection);
    }
  });
}

/**
 * Takes the session lock that serialises migrating processes. The advisory lock functions are
 * revoked from PUBLIC (migration 0022): a role that is neither the database owner nor the one
 * that migrated first is refused them, and told what to grant.
 */
async function takeMigrationLock(connection: Kysely<Database>): Promise<void> {
  try {
    await sql`select pg_advisory_lock(hashtext('envdata.migrate'))`.execute(connection);
  } catch (error) {
    if (!hasSqlState(error, SQLSTATE.insufficientPrivilege)) throw error;
    throw new EnvdataError(
      'MIGRATION_FAILED',
      'this role may not take advisory locks in this database: they are revoked from PUBLIC so that the read-only envdata_bi cannot hold up envdata, and granted to the database owner and the role that migrated first; connect as one of them, or have a superuser grant this role the advisory lock functions (docs/warehouse.md, "Locks and large objects")',
      { cause: error },
    );
  }
}

/**
 * Names of the migrations not yet applied, then of the repairs applied ones left for the code
 * to make (`repair <name>`, from `envdata.pending_repair`): `envdata migrate` makes both, and
 * until it has, the warehouse is not what this version promises.
 */
export async function pendingMigrations(
  db: Kysely<Database>,
  provider: MigrationProvider = new FolderMigrationProvider(),
): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  const all = await migrator.getMigrations();
  const pending = all.filter((m) => m.executedAt === undefined).map((m) => m.name);
  const { rows } = await sql<{ table: string | null }>`
    select to_regclass('envdata.pending_repair')::text as table`.execute(db);
  if (rows[0]?.table == null) return pending;
  const repairs = await db
    .selectFrom('pending_repair')
    .select('repair')
    .orderBy('repair')
    .execute();
  return [...pending, ...repairs.map((r) => `repair ${r.repair}`)];
}
