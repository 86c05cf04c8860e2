import { sql, type Kysely, type Transaction } from 'kysely';
import type { FactRow } from './fact-rows.js';
import type { LocatedRows } from './located-rows.js';
import type { Database } from './schema.js';

/** The fact tables the export writes (src/export/export-datasets.ts), as the specs name them. */
const EXPORTED = new Set([
  'envdata.weather_hourly',
  'envdata.pollen_hourly',
  'envdata.pollen_species_hourly',
]);

/**
 * Marks the UTC months of `groups` changed in `table` for the Parquet export
 * (`envdata.export_mark`, migration 0056), in the writing transaction `trx`: the export compares
 * the transaction with the snapshot it read each partition in. Inserts of facts are marked here,
 * one small statement a table and batch, rather than by a trigger whose transition table would
 * copy every row landed; updates and deletes are marked by the triggers of migration 0056.
 * A group is one location's rows of a chunk: its months are those from its first row's to its
 * last's.
 */
export async function markExportPartitions(
  trx: Transaction<Database>,
  table: string,
  groups: readonly LocatedRows<FactRow>[],
): Promise<void> {
  if (!EXPORTED.has(table)) return;
  const months = new Set<number>();
  for (const { rows } of groups) {
    let first = Infinity;
    let last = -Infinity;
    for (const row of rows) {
      const t = row.observedAt.getTime();
      if (t < first) first = t;
      if (t > last) last = t;
    }
    if (first === Infinity) continue;
    const from = new Date(first);
    const to = new Date(last);
    for (
      let y = from.getUTCFullYear(), m = from.getUTCMonth();
      y < to.getUTCFullYear() || (y === to.getUTCFullYear() && m <= to.getUTCMonth());
      m === 11 ? ((y += 1), (m = 0)) : (m += 1)
    ) {
      months.add(y * 12 + m);
    }
  }
  if (months.size === 0) return;
  const list = [...months];
  const dataset = table.replace(/^envdata\./, '');
  await sql`
    insert into envdata.export_mark (dataset, year, month)
    select ${dataset}, (m / 12)::smallint, (m % 12 + 1)::smallint
      from unnest(${list}::int[]) as m
    on conflict do nothing`.execute(trx);
}

/**
 * Folds each partition's marks into one (housekeeping, every pass): landings add a mark per
 * transaction, and a warehouse never exported (or exported rarely) would keep one row per chunk
 * landed. The new mark is this statement's transaction's, so no export snapshot taken before it
 * sees it: the partition stays changed for every export, as it was, and its oldest change
 * (`marked_at`, the export's lag) is kept. Only marks this statement sees committed are folded,
 * and only those no one else holds (`skip locked`): an export deleting the marks it saw, or
 * another host's housekeeping, may wait on this statement but never this one on them, so they
 * never deadlock. An export running at the same time may find the marks it saw folded and write
 * the partition again the next time: never a change missed. Returns the number of marks folded
 * away.
 */
export async function compactExportMarks(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ folded: number }>`
    with folded as (
      delete from envdata.export_mark
       where (dataset, year, month, xid) in (
         select dataset, year, month, xid from envdata.export_mark
          where (dataset, year, month) in (
            select dataset, year, month from envdata.export_mark
             group by dataset, year, month having count(*) > 1)
          for update skip locked)
      returning dataset, year, month, marked_at
    ), kept as (
      insert into envdata.export_mark (dataset, year, month, marked_at)
      select dataset, year, month, min(marked_at) from folded group by dataset, year, month
      returning 1
    )
    select ((select count(*) from folded) - (select count(*) from kept))::int as folded`.execute(
    db,
  );
  return rows[0]!.folded;
}
