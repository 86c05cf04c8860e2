import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dataset } from '../types.js';
import type { FactRow } from './fact-rows.js';
import type { SnapshotRows, SnapshotTable, WriteContext } from './fact-table.js';
import type { FactTableSpec } from './fact-table-spec.js';
import { ensureMonthPartitions } from './month-partitions.js';
import type { Database, SnapshotProduct } from './schema.js';
import type { SpeciesIds } from './species-ids.js';

/** Which snapshot a row belongs to: every row of one fetch shares it. */
export interface SnapshotTarget {
  readonly locationId: number;
  /** The dataset whose readings it holds: the forecast-accuracy rollup it refreshes. */
  readonly dataset: Dataset;
  readonly product: SnapshotProduct;
  readonly fetchedAt: Date;
}

/**
 * Stores a latest reading or a forecast as fetched at `fetchedAt`, beside the observations, so
 * `analytics.forecast_accuracy` can compare them later: the rows of every table in one
 * transaction, in the month's partitions (created first if need be). Idempotent: the same
 * snapshot stored twice keeps the first. Returns the rows written.
 *
 * A forecast also marks the hours it is about dirty (`envdata.rollup_dirty`), in the same
 * transaction: the next refresh of the rollups (when a run finishes) counts its pairs in
 * `analytics.forecast_accuracy_daily` for the hours already observed; hours observed later are
 * marked by their own landing. A latest reading is no forecast and marks nothing.
 *
 * Then, still in the transaction, the snapshot becomes its location's current one of the product
 * unless a newer one is stored (`envdata.advance_current_snapshot`, migration 0040): the forecast
 * and latest views read that copy, not the history of snapshots.
 */
export async function writeSnapshot(
  db: Kysely<Database>,
  species: SpeciesIds,
  target: SnapshotTarget,
  tables: readonly SnapshotRows[],
): Promise<number> {
  const filled = tables.filter((t) => t.rows.length > 0);
  if (filled.length === 0) return 0;
  const context: WriteContext = { species };
  for (const { table, rows } of filled) await table.prepare?.(db, rows, context);
  await ensureMonthPartitions(
    db,
    filled.map((t) => t.table.name),
    target.fetchedAt,
  );
  return db.transaction().execute(async (trx) => {
    let written = 0;
    for (const { table, rows } of filled) {
      written += await insertRows(trx, table, target, rows, context);
    }
    if (target.product !== 'latest') await markForecastHours(trx, target, filled);
    await advanceCurrentSnapshot(trx, target);
    return written;
  });
}

/**
 * Inserts the rows of one table, keeping the rows of a snapshot already stored: the columns of
 * every snapshot row (which snapshot, the hour it is about, whether that hour is the fetch's
 * rather than the service's), then the table's own (`spec`). Returns the rows written.
 */
async function insertRows(
  trx: Transaction<Database>,
  table: SnapshotTable<FactRow>,
  { locationId, product, fetchedAt }: SnapshotTarget,
  rows: readonly (FactRow & { readonly stampedAtFetch?: true })[],
  context: WriteContext,
): Promise<number> {
  const { key, columns } = table.spec(context) as FactTableSpec<FactRow>;
  const declared = [...key, ...columns];
  const values = rows.map((row) => {
    const value: Record<string, unknown> = {
      location_id: locationId,
      product,
      fetched_at: fetchedAt,
      valid_at: row.observedAt,
      stamped_at_fetch: row.stampedAtFetch === true,
    };
    for (const column of declared) value[column.name] = column.value(row);
    return value;
  });
  const result = await trx
    .insertInto(table.name)
    // The declaration is checked against the table's columns when it compiles (`declareTables`).
    .values(values as never)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n);
}

/** Makes the snapshot its location's current one of the product, unless a newer one is. */
async function advanceCurrentSnapshot(
  trx: Transaction<Database>,
  { locationId, dataset, product, fetchedAt }: SnapshotTarget,
): Promise<void> {
  await sql`
    select envdata.advance_current_snapshot(${locationId}, ${dataset}::envdata.dataset,
      ${product}::envdata.snapshot_product, ${fetchedAt})`.execute(trx);
}

/** Marks the hours a forecast is about for the next refresh of the rollups. */
async function markForecastHours(
  trx: Transaction<Database>,
  target: SnapshotTarget,
  tables: readonly SnapshotRows[],
): Promise<void> {
  let from = Infinity;
  let to = -Infinity;
  for (const { rows } of tables) {
    for (const row of rows) {
      const at = row.observedAt.getTime();
      if (at < from) from = at;
      if (at > to) to = at;
    }
  }
  await sql`
    insert into envdata.rollup_dirty (location_id, dataset, from_at, to_at)
    values (${target.locationId}, ${target.dataset}::envdata.dataset, ${new Date(from)},
      ${new Date(to + 3_600_000)})`.execute(trx);
}
