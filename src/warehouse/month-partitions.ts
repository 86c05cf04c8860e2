import { sql, type Kysely } from 'kysely';
import { limitDdlLockWait } from './ddl-lock-timeout.js';
import type { Database } from './schema.js';

/** The snapshot tables, range-partitioned by UTC month of `fetched_at`: every `*_snapshot` table. */
export type MonthPartitionedTable = Extract<keyof Database, `${string}_snapshot`>;

/**
 * Creates the monthly partition of each table that rows fetched at `fetchedAt` go to, unless it
 * exists: one statement, before the transaction that stores them, so the parent is locked only
 * for a moment. Unlike `YearPartitions` it keeps no list of the months it saw: snapshot retention
 * drops months while the process runs, and one statement per fetch is nothing beside the fetch.
 *
 * A missing month is created and attached (migration 0046): no reader of the table holds that
 * up, nor is any store held up by it. Only another DDL on the table (a retention's drop, a
 * migration) can: then it gives up after `DDL_LOCK_TIMEOUT_MS` with 55P03 and the store fails, to
 * be tried again, rather than queue the table's other stores behind it.
 */
export async function ensureMonthPartitions(
  db: Kysely<Database>,
  tables: readonly MonthPartitionedTable[],
  fetchedAt: Date,
): Promise<void> {
  const month = sql`(${fetchedAt}::timestamptz at time zone 'UTC')::date`;
  await db.transaction().execute(async (trx) => {
    await limitDdlLockWait(trx);
    await sql`
      select envdata.ensure_month_partitions(t::regclass, ${month}, ${month})
      from unnest(${tables.map((t) => `envdata.${t}`)}::text[]) t`.execute(trx);
  });
}
