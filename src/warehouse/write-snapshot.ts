import type { Kysely, Transaction } from 'kysely';
import type { FactRow, WriteContext } from './fact-table.js';
import type { Database, SnapshotProduct } from './schema.js';
import type { SpeciesIds } from './species-ids.js';

/** Which snapshot a row belongs to: every row of one fetch shares it. */
export interface SnapshotTarget {
  readonly locationId: number;
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
 * transaction. Idempotent: the same snapshot stored twice keeps the first. Returns the rows
 * written.
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
  return db.transaction().execute(async (trx) => {
    let written = 0;
    for (const { table, rows } of filled) {
      written += await table.insert(trx, target, rows, context);
    }
    return written;
  });
}

/** The columns every snapshot row starts with: which snapshot it belongs to, the hour it is about. */
export function snapshotStamp({ locationId, product, fetchedAt }: SnapshotTarget, row: FactRow) {
  return { location_id: locationId, product, fetched_at: fetchedAt, valid_at: row.observedAt };
}
