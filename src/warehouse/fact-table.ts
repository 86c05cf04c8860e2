import type { Kysely } from 'kysely';
import type { FactTableSpec } from './fact-table-spec.js';
import type { FactRow, NormalizeStats, QuarantinedRecord } from './fact-rows.js';
import type { MonthPartitionedTable } from './month-partitions.js';
import type { Database } from './schema.js';
import type { SpeciesIds } from './species-ids.js';
import type { PartitionedTable } from './year-partitions.js';
import type { ShareField } from '../types.js';

/**
 * What a writer keeps from one batch to the next for the tables that look something up before
 * they write (pollen species rows carry a species id).
 */
export interface WriteContext {
  readonly species: SpeciesIds;
}

/**
 * A table a dataset's rows land in: a fact table (`*_hourly`, written by the `FactWriter`) or a
 * snapshot table (`*_snapshot`, written by `writeSnapshot`). Declared once, with its pair, by the
 * dataset whose rows it holds (`declareTables`); the warehouse knows no dataset. The writers
 * derive the rest from `spec`: the COPY tuples and digest of each landing's rows, every statement
 * that writes them (`writeFacts`), and a snapshot's insert.
 */
export interface WarehouseTable<Row extends FactRow, Name extends TableName = TableName> {
  /** The table in schema `envdata`, partitioned by UTC year (facts) or month (snapshots). */
  readonly name: Name;
  /**
   * Its columns (`defineFactTable`), given what the writer keeps for lookups (species ids).
   * (Typed for any row, as a table of rows of some kind is a table of fact rows; it reads this
   * table's rows.)
   */
  spec(context: WriteContext): FactTableSpec<never>;
  /** Before the landing transaction (short locks, nothing to roll back): ids the rows need. */
  prepare?(db: Kysely<Database>, rows: readonly Row[], context: WriteContext): Promise<void>;
  /**
   * The column each share field is stored in, as a fraction (`humidity_fraction`…), in this
   * table and in a snapshot table's current copy (`<name>_current`): where `fillSnapshotShares`
   * fills values set aside for a unit unknown. Absent for a table without shares.
   */
  readonly shareColumns?: Readonly<Partial<Record<ShareField, string>>>;
}

/** The tables of `envdata` a dataset's rows land in. */
export type TableName = PartitionedTable | MonthPartitionedTable;

/** A fact table: one row per location, hour and key, range-partitioned by UTC year. */
export type FactTable<Row extends FactRow> = WarehouseTable<Row, PartitionedTable>;

/** A snapshot table: latest readings and forecasts as fetched, partitioned by month. */
export type SnapshotTable<Row extends FactRow> = WarehouseTable<Row, MonthPartitionedTable>;

/** Rows bound for one table; build it with `tableRows` so the two agree. */
export interface TableRows<Table extends WarehouseTable<FactRow> = FactTable<FactRow>> {
  readonly table: Table;
  readonly rows: readonly FactRow[];
}

/** Rows bound for one snapshot table. */
export type SnapshotRows = TableRows<SnapshotTable<FactRow>>;

/** Pairs rows with their table, checking at compile time that the table takes such rows. */
export function tableRows<Row extends FactRow, Name extends TableName>(
  table: WarehouseTable<Row, Name>,
  rows: readonly Row[],
): TableRows<WarehouseTable<FactRow, Name>> {
  return { table, rows };
}

/**
 * What one answer lands as, once normalized: its fact rows by table, the records set aside for
 * quarantine, and what normalizing counted (records outside the window, repeated hours…).
 */
export interface LandingFacts extends NormalizeStats {
  readonly tables: readonly TableRows[];
  readonly quarantined: readonly QuarantinedRecord[];
}

/** The facts of an answer that has none (`no_data`, `not_covered`). */
export const NO_FACTS: LandingFacts = Object.freeze({
  tables: [],
  quarantined: [],
  outsideWindow: 0,
  duplicateHours: 0,
  conflictHours: 0,
  quarantinedHours: new Set<number>(),
});
