import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * How long a DDL envdata runs while it works (creating, attaching or dropping a partition;
 * `envdata migrate`) waits for its lock before it gives up with 55P03 (lock_not_available) and
 * is tried again later.
 *
 * Short, because PostgreSQL queues locks in order: a DDL that needs ACCESS EXCLUSIVE on a table
 * a BI report reads waits for the report, and every later store into that table waits behind the
 * DDL. A report may run for as long as its session wants (`set statement_timeout = 0` is any
 * role's right), so only the writer's side can bound that wait: the stores wait at most this
 * long, once per try.
 */
export const DDL_LOCK_TIMEOUT_MS = 1_000;

/** Sets `lock_timeout` to `DDL_LOCK_TIMEOUT_MS` for the rest of transaction `trx`. */
export async function limitDdlLockWait(
  trx: Transaction<Database> | Kysely<Database>,
): Promise<void> {
  await sql`select set_config('lock_timeout', ${`${DDL_LOCK_TIMEOUT_MS}ms`}, true)`.execute(trx);
}
