import { Kysely } from 'kysely';
import pg from 'pg';
import { isServiceUnavailable } from '../errors/is-service-unavailable.js';
import { trackResource } from '../lifecycle/open-resources.js';
import type { Logger } from '../logging/create-logger.js';
import { maskUrl } from './database-url.js';
import { databaseUnavailable, isConnectionFailure } from './database-unavailable.js';
import type { Database } from './schema.js';
import { errorCode } from '../errors/pg-errors.js';
import { WireDialect } from './wire/index.js';
import { registerCancellablePool } from './cancel-statements.js';

// COUNT(*) and other int8 results as numbers: our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export interface CreateDatabaseOptions {
  url: string;
  poolMax: number;
  logger: Logger;
  /** Name for `application_name`, visible in `pg_stat_activity`. Default `envdata`. */
  applicationName?: string;
  /**
   * Statements made with `named` run prepared, parsed once per connection
   * (DATABASE_PREPARED_STATEMENTS). Default true.
   */
  preparedStatements?: boolean;
}

/**
 * The database seam: Kysely over a `pg` pool. The only place that creates pools.
 * Call `db.destroy()` to close it.
 */
export function createDatabase(options: CreateDatabaseOptions): Kysely<Database> {
  const log = options.logger.child({ component: 'database' });
  const config: pg.PoolConfig = {
    connectionString: options.url,
    max: options.poolMax,
    application_name: options.applicationName ?? 'envdata',
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    // Warehouse tables live in schema `envdata`; BI views in `analytics`.
    options: '-c search_path=envdata,public -c timezone=UTC',
  };
  const pool = new pg.Pool(config);
  // An idle connection fails when Postgres stops or restarts: the loops that use the pool meet
  // that outage on their next query and report it once (OutageMonitor); only other failures
  // are worth a line here.
  // A client that is checked out but between queries (inside a transaction, say) has no query to
  // reject when Postgres goes away: pg then emits `error` on it, which would crash the process.
  // Its next query fails instead ("not queryable"), and the caller meets the outage there.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  pool.on('error', (error) => {
    if (isServiceUnavailable(error))
      log.debug({ code: errorCode(error) }, 'idle Postgres connection lost');
    else log.warn({ err: error }, 'idle Postgres connection failed');
  });
  // The connections checked out now: those `cancelStatements` may cancel a statement of.
  const busy = new Set<pg.PoolClient>();
  pool.on('acquire', (client) => busy.add(client));
  pool.on('release', (_error, client) => busy.delete(client));
  pool.on('remove', (client) => busy.delete(client));
  const untrack = trackResource('pg pool', maskUrl(options.url), () => db.destroy());
  const db = new Kysely<Database>({
    dialect: new WireDialect({ pool, prepare: options.preparedStatements !== false }),
  });
  registerCancellablePool(db, {
    url: options.url,
    busyPids: () =>
      [...busy].flatMap((c) => {
        const pid = (c as unknown as { processID: number | null }).processID;
        return pid === null ? [] : [pid];
      }),
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
  // A connection lost between the calls below must not crash the process: they reject instead.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    throw isConnectionFailure(error) ? databaseUnavailable(url, error) : error;
  } finally {
    await client.end().catch(() => undefined);
  }
}
