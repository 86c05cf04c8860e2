import { sql, type Kysely } from 'kysely';
import { limitDdlLockWait } from './ddl-lock-timeout.js';
import type { Database } from './schema.js';

/** The fact tables, range-partitioned by UTC year (`weather_hourly`…): every `*_hourly` table. */
export type PartitionedTable = Extract<keyof Database, `${string}_hourly`>;

/**
 * Creates the yearly partitions facts are about to land in, ahead of them, once per process and
 * year. Runs outside the landing transaction so the parent table is locked only for a moment,
 * and then only SHARE UPDATE EXCLUSIVE (created, then attached: migration 0046), which neither a
 * reader nor a landing conflicts with; behind another DDL it gives up after
 * `DDL_LOCK_TIMEOUT_MS` (55P03), and the landing is tried again.
 */
export class YearPartitions {
  private readonly known = new Set<string>();

  async ensure(
    db: Kysely<Database>,
    table: PartitionedTable,
    instants: Iterable<Date>,
  ): Promise<void> {
    const years = new Set<number>();
    for (const instant of instants) {
      const year = instant.getUTCFullYear();
      if (!this.known.has(`${table}:${year}`)) years.add(year);
    }
    for (const year of years) {
      await db.transaction().execute(async (trx) => {
        await limitDdlLockWait(trx);
        await sql`select envdata.ensure_year_partitions(${`envdata.${table}`}::regclass, ${year}::int, ${year}::int)`.execute(
          trx,
        );
      });
      this.known.add(`${table}:${year}`);
    }
  }
}
