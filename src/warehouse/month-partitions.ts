import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** The snapshot tables, range-partitioned by UTC month of `fetched_at`: every `*_snapshot` table. */
export type MonthPartitionedTable = Extract<keyof Database, `${string}_snapshot`>;

/**
 * Creates the monthly partition of each table that rows fetched at `fetchedAt` go to, unless it
 * exists: one round trip, before the transaction that stores them, so the parent is locked only
 * for a moment. Unlike `YearPartitions` it keeps no list of the months it saw: snapshot retention
 * drops months while the process runs, and one statement per fetch is nothing beside the fetch.
 */
export async function ensureMonthPartitions(
  db: Kysely<Database>,
  tables: readonly MonthPartitionedTable[],
  fetchedAt: Date,
): Promise<void> {
  const month = sql`(${fetchedAt}::timestamptz at time zone 'UTC')::date`;
  await sql`
    select envdata.ensure_month_partitions(t::regclass, ${month}, ${month})
    from unnest(${tables.map((t) => `envdata.${t}`)}::text[]) t`.execute(db);
}
