import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dataset, ShareField } from '../types.js';
import type { FactRow } from './fact-rows.js';
import type { WriteContext } from './fact-table.js';
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

/** The tables of `envdata` that keep snapshots (`weather_snapshot`…). */
export type SnapshotTableName = Extract<keyof Database, `${string}_snapshot`>;

/**
 * A snapshot table as `writeSnapshot` sees it: how rows of one fetch are inserted. Declared by
 * the dataset whose readings it holds (`src/datasets/`), beside its fact tables.
 */
export interface SnapshotTable<Row extends FactRow> {
  readonly name: SnapshotTableName;
  /**
   * The column each share field is stored in, as a fraction (`humidity_fraction`…), in this
   * table and in its current copy (`<name>_current`): where `fillSnapshotShares` fills values
   * set aside for a unit unknown. Absent for a table without shares.
   */
  readonly shareColumns?: Readonly<Partial<Record<ShareField, string>>>;
  /** Before the transaction: ids the rows need (species). */
  prepare?(db: Kysely<Database>, rows: readonly Row[], context: WriteContext): Promise<void>;
  /** Inserts the rows, keeping the rows of a snapshot already stored. Returns the rows written. */
  insert(
    trx: Transaction<Database>,
    target: SnapshotTarget,
    rows: readonly Row[],
    context: WriteContext,
  ): Promise<number>;
}

/** Rows bound for one snapshot table; build it with `snapshotRows` so the two agree. */
export interface SnapshotRows {
  readonly table: SnapshotTable<FactRow>;
  readonly rows: readonly FactRow[];
}

/** Pairs rows with their snapshot table, checking at compile time that it takes such rows. */
export function snapshotRows<Row extends FactRow>(
  table: SnapshotTable<Row>,
  rows: readonly Row[],
): SnapshotRows {
  return { table, rows };
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
      written += await table.insert(trx, target, rows, context);
    }
    if (target.product !== 'latest') await markForecastHours(trx, target, filled);
    await advanceCurrentSnapshot(trx, target);
    return written;
  });
}

/**
 * A row bound for a snapshot table: the hour it is about, and whether envdata gave that hour (a
 * latest reading the service sent without a stamp, stamped with the hour of the fetch).
 */
export interface SnapshotRow extends FactRow {
  readonly stampedAtFetch?: true;
}

/**
 * The columns every snapshot row starts with: which snapshot it belongs to, the hour it is about,
 * and whether that hour is the fetch's rather than the service's (`stamped_at_fetch`).
 */
export function snapshotStamp(
  { locationId, product, fetchedAt }: SnapshotTarget,
  row: SnapshotRow,
) {
  return {
    location_id: locationId,
    product,
    fetched_at: fetchedAt,
    valid_at: row.observedAt,
    stamped_at_fetch: row.stampedAtFetch === true,
  };
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
