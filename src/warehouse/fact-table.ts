import type { Kysely } from 'kysely';
import type { FactTableSpec } from './fact-table-spec.js';
import type { FactRow, NormalizeStats, QuarantinedRecord } from './fact-rows.js';
import type { Database } from './schema.js';
import type { SpeciesIds } from './species-ids.js';
import type { PartitionedTable } from './year-partitions.js';

/**
 * What a writer keeps from one batch to the next for the tables that look something up before
 * they write (pollen species rows carry a species id).
 */
export interface WriteContext {
  readonly species: SpeciesIds;
}

/**
 * A fact table as the `FactWriter` sees it: a name (partitions are created by it) and its
 * columns. Declared once by the dataset whose rows it holds (`src/datasets/`); the warehouse
 * knows no dataset. The writer derives the rest from `spec`: the COPY tuples and digest of each
 * landing's rows, staged as the landing arrives (after `prepare`, for a table that has one),
 * and every statement that writes them (`writeFacts`).
 */
export interface FactTable<Row extends FactRow> {
  /** The table in schema `envdata`, range-partitioned by UTC year of `observed_at`. */
  readonly name: PartitionedTable;
  /**
   * Its columns (`defineFactTable`), given what the writer keeps for lookups (species ids).
   * (Typed for any row, as a table of rows of some kind is a table of fact rows; it reads this
   * table's rows.)
   */
  spec(context: WriteContext): FactTableSpec<never>;
  /** Before the landing transaction (short locks, nothing to roll back): ids the rows need. */
  prepare?(db: Kysely<Database>, rows: readonly Row[], context: WriteContext): Promise<void>;
}

/** Rows bound for one fact table; build it with `tableRows` so the two agree. */
export interface TableRows {
  readonly table: FactTable<FactRow>;
  readonly rows: readonly FactRow[];
}

/** Pairs rows with their table, checking at compile time that the table takes such rows. */
export function tableRows<Row extends FactRow>(
  table: FactTable<Row>,
  rows: readonly Row[],
): TableRows {
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
