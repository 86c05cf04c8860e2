import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { trackResource } from '../lifecycle/open-resources.js';
import type { Logger } from '../logging/create-logger.js';
import { maskUrl } from './database-url.js';
import { databaseUnavailable, isConnectionFailure } from './database-unavailable.js';
import type { Database } from './schema.js';

// COUNT(*) and other int8 results as numbers: our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export interface CreateDatabaseOptions {
  url: string;
  poolMax: number;
  logger: Logger;
  /** Name for `application_name`, visible in `pg_stat_activity`. Default `envdata`. */
  applicationName?: string;
}

/**
 * The database seam: Kysely over a `pg` pool. The only place that creates pools.
 * Call `db.destroy()` to close it.
 */
export function createDatabase(options: CreateDatabaseOptions): Kysely<Database> {
  const log = options.logger.child({ component: 'database' });
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolMax,
    application_name: options.applicationName ?? 'envdata',
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    // Warehouse tables live in schema `envdata`; BI views in `analytics`.
    options: '-c search_path=envdata,public -c timezone=UTC',
  });
  pool.on('error', (error) => log.warn({ err: error }, 'idle Postgres connection failed'));
  const untrack = trackResource('pg pool', maskUrl(options.url), () => db.destroy());
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
  });
  const destroy = db.destroy.bind(db);
  db.destroy = async () => {
    untrack();
    await destroy();
  };
  return db;
}

/** Checks that Postgres answers; throws `DATABASE_UNAVAILABLE` with the operator's next step. */
export async function assertDatabaseAnswers(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    throw isConnectionFailure(error) ? databaseUnavailable(url, error) : error;
  } finally {
    await client.end().catch(() => undefined);
  }
}
