import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { withDatabase } from '../../src/warehouse/database-url.js';
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
export function stopOnSignal(bench: BenchDatabase): {
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
