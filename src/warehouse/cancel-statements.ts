import type { Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

/** What `cancelStatements` needs of a pool `createDatabase` made. */
interface CancellablePool {
  readonly url: string;
  /** The backend pids of the pool's connections checked out now. */
  readonly busyPids: () => readonly number[];
}

const pools = new WeakMap<Kysely<Database>, CancellablePool>();

/** Called by `createDatabase`: lets `cancelStatements(db)` reach `db`'s pool. */
export function registerCancellablePool(db: Kysely<Database>, pool: CancellablePool): void {
  pools.set(db, pool);
}

/** What the connection that cancels may take to open: the shutdown's second is short. */
const CONNECT_TIMEOUT_MS = 1_000;

/**
 * Cancels on the server (`pg_cancel_backend`) whatever statement the connections of `db`'s pool
 * that are checked out are running: a landing waiting for a lock, say. Each fails with 57014
 * (query_canceled) and its transaction rolls back, so nothing half-done is kept; a connection
 * between statements is left alone. The shutdown deadline calls it: the process's work must end
 * then, whatever Postgres is waiting for.
 *
 * It goes through a connection of its own, outside the pool, whose connections may all be the
 * ones waiting. Resolves with the number of statements cancelled; rejects when Postgres does not
 * answer (there is then nothing to cancel on it). Behind a pooler in transaction mode the pids
 * are the pooler's, and nothing is cancelled.
 */
export async function cancelStatements(db: Kysely<Database>): Promise<number> {
  const pool = pools.get(db);
  const pids = pool?.busyPids() ?? [];
  if (!pool || pids.length === 0) return 0;
  const client = new pg.Client({
    connectionString: pool.url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'envdata-cancel',
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ cancelled: boolean }>(
      'select pg_cancel_backend(pid) as cancelled from unnest($1::int[]) as pid',
      [pids],
    );
    return rows.filter((r) => r.cancelled).length;
  } finally {
    await client.end().catch(() => undefined);
  }
}
