import type { Kysely, Transaction } from 'kysely';
import type { FactTableSpec } from './fact-table-spec.js';
import type { FactRow, NormalizeStats, QuarantinedRecord } from './fact-rows.js';
import type { LocatedRows, StagedRows } from './located-rows.js';
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

/** What the writer knows of a batch before writing it. */
export interface WriteHint {
  /**
   * The ledger records none of the batch's hours as landed: its rows are most likely stored
   * nowhere yet, so they are inserted at once, without first reading what is stored. A wrong
   * guess costs time only (see `upsertFacts`).
   */
  readonly assumeNew: boolean;
}

/**
 * A fact table as the `FactWriter` sees it: a name (partitions are created by it) and how a
 * batch of rows is written. Declared by the dataset whose rows it holds (`src/datasets/`); the
 * warehouse knows no dataset.
 */
export interface FactTable<Row extends FactRow> {
  /** The table in schema `envdata`, range-partitioned by UTC year of `observed_at`. */
  readonly name: PartitionedTable;
  /**
   * As a landing is staged, before its batch is: one location's rows as the tuples of a binary
   * COPY and their digest (`StagedRows`), so that a batch only joins what its landings bring
   * (`undefined`: the rows are encoded when written). Absent where encoding needs `prepare`
   * first (species ids).
   */
  encode?(locationId: number, rows: readonly Row[]): StagedRows;
  /** Before the landing transaction (short locks, nothing to roll back): ids the rows need. */
  prepare?(db: Kysely<Database>, rows: readonly Row[], context: WriteContext): Promise<void>;
  /**
   * Inside the landing transaction: every group of the batch in one set-based statement,
   * identical rows written again changing nothing. Rows are unique per key within a group.
   * Returns the rows inserted or changed.
   */
  write(
    trx: Transaction<Database>,
    groups: readonly LocatedRows<Row>[],
    context: WriteContext,
    hint: WriteHint,
  ): Promise<number>;
  /**
   * The columns `write` writes, for a table written by `upsertFacts`: the writer then sends its
   * statements (`newFactsStatement`, `probeStatement`, `upsertStatement`) on the landing's
   * connection together with the ledger's. Absent: the writer calls `write`. (Typed for any
   * row, as a table of rows of some kind is a table of fact rows; it reads this table's rows.)
   */
  spec?(context: WriteContext): FactTableSpec<never>;
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
