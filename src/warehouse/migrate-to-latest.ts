import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql, type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import { EnvdataError } from '../errors/envdata-error.js';
import { hasSqlState, SQLSTATE } from '../errors/pg-errors.js';
import type { Logger } from '../logging/create-logger.js';
import { DDL_LOCK_TIMEOUT_MS } from './ddl-lock-timeout.js';
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

/** How long `migrateToLatest` tries again, by default, when its locks are held (2 minutes). */
export const MIGRATE_LOCK_WAIT_MS = 120_000;

/** The pause between two tries of a migration that gave up behind a reader. */
const RETRY_PAUSE_MS = 5_000;

export interface MigrateOptions {
  /**
   * How long to keep trying when the migrations cannot take their locks; default
   * `MIGRATE_LOCK_WAIT_MS`. Each try waits at most `DDL_LOCK_TIMEOUT_MS` for a lock.
   */
  readonly lockWaitMs?: number;
}

/**
 * Brings the database to the latest migration. Safe when several processes migrate at once:
 * a session advisory lock serialises them, and the later ones find nothing left to do.
 *
 * A migration locks the tables and views it changes ACCESS EXCLUSIVE, which waits for every
 * reader of them (a BI report may read for as long as it likes), while every landing into them
 * waits behind it. So each lock is waited for at most `DDL_LOCK_TIMEOUT_MS`: then the pending
 * migrations roll back (they run in one transaction), the landings go on, and the migrations are
 * tried again after a pause, for `lockWaitMs` in all. After that it fails (`MIGRATION_FAILED`,
 * nothing changed), naming the sessions that hold envdata's tables.
 */
export async function migrateToLatest(
  db: Kysely<Database>,
  logger: Logger,
  provider: MigrationProvider = new FolderMigrationProvider(),
  options: MigrateOptions = {},
): Promise<MigrationOutcome> {
  const log = logger.child({ component: 'migrate' });
  const lockWaitMs = options.lockWaitMs ?? MIGRATE_LOCK_WAIT_MS;
  return db.connection().execute(async (connection) => {
    await takeMigrationLock(connection);
    try {
      await sql`select set_config('lock_timeout', ${`${DDL_LOCK_TIMEOUT_MS}ms`}, false)`.execute(
        connection,
      );
      const migrator = new Migrator({
        db: connection,
        provider,
        migrationTableName: MIGRATION_TABLE,
        migrationLockTableName: MIGRATION_LOCK_TABLE,
      });
      const giveUpAt = Date.now() + lockWaitMs;
      let said = false;
      for (;;) {
        const { error, results = [] } = await migrator.migrateToLatest();
        for (const result of results) {
          if (result.status === 'Success') log.info({ migration: result.migrationName }, 'applied');
        }
        if (error && hasSqlState(error, SQLSTATE.lockNotAvailable)) {
          const holders = await lockHolders(connection);
          if (Date.now() + RETRY_PAUSE_MS > giveUpAt) {
            throw new EnvdataError(
              'MIGRATION_FAILED',
              `the migrations could not take their locks within ${Math.round(lockWaitMs / 1000)} s: ${describeHolders(holders)} hold envdata's tables, and the migrations gave up rather than hold up the landings queued behind them; nothing changed — run \`envdata migrate\` again when they have ended, or end them (select pg_terminate_backend(pid))`,
              { cause: error, retryable: true, details: { holders } },
            );
          }
          if (!said) {
            said = true;
            log.warn(
              { holders },
              `the migrations wait for ${describeHolders(holders)} to end: each try gives up after ${DDL_LOCK_TIMEOUT_MS} ms rather than hold up the landings, and is made again`,
            );
          }
          await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
          continue;
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
      }
    } finally {
      await sql`reset lock_timeout`.execute(connection);
      await sql`select pg_advisory_unlock(hashtext('envdata.migrate'))`.execute(connection);
    }
  });
}

/** A session holding a lock on a table or view of envdata's schemas. */
export interface LockHolder {
  readonly pid: number;
  readonly role: string | null;
  readonly application: string | null;
  readonly since: Date | null;
}

/** The other sessions that hold locks on relations of schemas `envdata` and `analytics`. */
async function lockHolders(connection: Kysely<Database>): Promise<LockHolder[]> {
  const { rows } = await sql<LockHolder>`
    select a.pid, a.usename as role, nullif(a.application_name, '') as application,
      a.xact_start as since
    from pg_stat_activity a
    where a.pid <> pg_backend_pid()
      and a.pid in (select l.pid from pg_locks l join pg_class c on c.oid = l.relation
        where l.granted and l.database = (select oid from pg_database where datname = current_database())
          and c.relnamespace in ('envdata'::regnamespace, 'analytics'::regnamespace))
    order by a.xact_start nulls last, a.pid
    limit 5`.execute(connection);
  return rows;
}

/** `session 4242 (envdata_bi, Metabase, in a transaction since 2026-11-28T17:00:00.000Z)`. */
function describeHolders(holders: readonly LockHolder[]): string {
  if (holders.length === 0) return 'other sessions (gone by now)';
  return holders
    .map((h) => {
      const about = [
        h.role,
        h.application,
        h.since ? `in a transaction since ${h.since.toISOString()}` : null,
      ].filter((part) => part !== null);
      return `session ${h.pid}${about.length > 0 ? ` (${about.join(', ')})` : ''}`;
    })
    .join(', ');
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
