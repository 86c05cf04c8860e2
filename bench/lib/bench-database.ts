import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { createApp, type App } from '../../src/app.js';
import { configFromDefaults } from '../../src/config/load-config.js';
import { withDatabase } from '../../src/warehouse/database-url.js';
import { ensureDatabase } from '../../src/warehouse/ensure-database.js';
import { migrateToLatest } from '../../src/warehouse/migrate-to-latest.js';
import type { Database } from '../../src/warehouse/schema.js';

/** The server the benches use (a superuser URL): BENCH_DATABASE_URL or the local default. */
export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** A throwaway database of its own for one bench run. */
export interface BenchDatabase {
  readonly name: string;
  readonly url: string;
  /** Cancels the statements running in it, so an interrupt is prompt. */
  cancelQueries(): Promise<void>;
  /** Drops it (with force); idempotent. */
  drop(): Promise<void>;
}

async function onServer<T>(serverUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Names a fresh database `envdata_bench_<random>` on `serverUrl` (not created yet). */
export function benchDatabase(serverUrl: string): BenchDatabase {
  const name = `envdata_bench_${randomBytes(4).toString('hex')}`;
  let dropped = false;
  return {
    name,
    url: withDatabase(serverUrl, name),
    cancelQueries: () =>
      onServer(serverUrl, async (client) => {
        await client.query(
          'select pg_cancel_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [name],
        );
      }),
    async drop() {
      if (dropped) return;
      dropped = true;
      await onServer(serverUrl, async (client) => {
        await client.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
      });
    },
  };
}

/** Starts a timed phase without the previous phase's dirty buffers (needs superuser). */
export async function checkpoint(db: Kysely<Database>): Promise<void> {
  await sql`checkpoint`.execute(db).catch(() => undefined);
}

/**
 * Ctrl-C (or SIGTERM) for a bench on `bench`: the first signal cancels the running statement and
 * makes `stopIfInterrupted()` throw at the bench's next step, so that it cleans up as a failure
 * does; a second one leaves at once. `signal()` says which signal stopped it, if one did.
 */
function stopOnSignal(bench: BenchDatabase): {
  stopIfInterrupted(): void;
  signal(): NodeJS.Signals | undefined;
} {
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(130);
    interrupted = signal;
    console.error(`\n${signal}: stopping, then dropping ${bench.name} (again to leave at once)`);
    void bench.cancelQueries().catch(() => undefined);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopIfInterrupted: () => {
      if (interrupted) throw new Error(`interrupted by ${interrupted}`);
    },
    signal: () => interrupted,
  };
}

/** What a bench body gets from `runInBenchDatabase`. */
export interface BenchSession {
  readonly bench: BenchDatabase;
  /** The app on the bench database, migrated. */
  readonly app: App;
  /** Throws at the bench's next step once Ctrl-C (or SIGTERM) was received. */
  stopIfInterrupted(): void;
}

/**
 * Runs a bench in a throwaway database on `serverUrl`: creates it, opens an app on it and
 * migrates, runs `body`, then closes the app and drops the database (unless `keep`: its URL is
 * printed). Ctrl-C stops at the next step (a running statement is cancelled) and cleans up as a
 * failure does; a second one leaves at once. Sets the exit code: 130 when stopped by a signal,
 * 1 on a failure (printed).
 */
export async function runInBenchDatabase(
  serverUrl: string,
  keep: boolean,
  body: (session: BenchSession) => Promise<void>,
): Promise<void> {
  const bench = benchDatabase(serverUrl);
  const stopping = stopOnSignal(bench);
  try {
    await ensureDatabase(bench.url);
    const app = createApp(configFromDefaults({ DATABASE_URL: bench.url, LOG_LEVEL: 'warn' }));
    try {
      console.log(`database ${bench.name}: migrating`);
      await migrateToLatest(app.db, app.logger);
      await body({ bench, app, stopIfInterrupted: stopping.stopIfInterrupted });
      if (keep) console.log(`\nkept the database: ${bench.url}`);
    } finally {
      await app.close();
      if (!keep) await bench.drop();
    }
  } catch (error) {
    const interrupted = stopping.signal();
    if (interrupted) {
      console.error(`stopped by ${interrupted}; the bench database is dropped`);
      process.exitCode = 130;
      return;
    }
    console.error(error);
    process.exitCode = 1;
  }
}

/**
 * The bench's options from `read`, or `undefined` after a bad one: its message (which option,
 * what it takes) and where the help is are printed, the exit code is 2, nothing was created.
 */
export function benchOptions<T>(bench: string, read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    console.error(`${(error as Error).message} (npm run ${bench} -- --help)`);
    process.exitCode = 2;
    return undefined;
  }
}
