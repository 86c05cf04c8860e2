import type { Transaction } from 'kysely';
import { isUniqueViolation } from '../errors/pg-errors.js';
import {
  changedGroups,
  factDigests,
  newFactsStatement,
  probeStatement,
  rowCount,
  upsertStatement,
  type FactWire,
} from './fact-statements.js';
import type { FactRow } from './fact-rows.js';
import type { FactTableSpec } from './fact-table-spec.js';
import type { LocatedRows } from './located-rows.js';
import type { Database } from './schema.js';
import { markExportPartitions } from './export-marks.js';
import type { Statement } from './wire/index.js';

/** How a batch of facts is written; `bench:upsert` measures what each earns (docs/scaling.md). */
export interface WriteTechniques extends FactWire {
  /** Groups stored exactly as they are (same count and digest) are not sent again. */
  readonly digest: boolean;
  /**
   * Marks the months written for the Parquet export (`markExportPartitions`); default true.
   * Only `bench:upsert --no-export-marks` turns it off, to measure what it costs.
   */
  readonly exportMarks?: boolean;
}

export const ALL_TECHNIQUES: WriteTechniques = Object.freeze({ copy: true, digest: true });

/** One fact table of a batch, with its rows by location. */
export interface FactGroups {
  readonly spec: FactTableSpec<FactRow>;
  readonly groups: readonly LocatedRows<FactRow>[];
}

/** What the batch's transaction writes beside the facts (the ledger's statements). */
export interface AlongsideFacts {
  /** Run before the facts: they need not know whether the facts changed. */
  readonly first: readonly Statement<unknown>[];
  /** Run after the facts, told whether any fact row was inserted or changed. */
  readonly after: (factsChanged: boolean) => readonly Statement<unknown>[];
}

export interface WriteFactsOptions {
  /**
   * The ledger records none of the batch's hours as landed: the rows are inserted at once, with
   * no probe; a row stored after all fails the statement (`RowsStoredAlready`).
   */
  readonly assumeNew: boolean;
  readonly alongside?: AlongsideFacts;
  readonly techniques?: WriteTechniques;
}

const NOTHING_ALONGSIDE: AlongsideFacts = { first: [], after: () => [] };

/**
 * Writes the batch's facts in the open transaction `trx`, as `INSERT … ON CONFLICT DO UPDATE …
 * WHERE … IS DISTINCT FROM` would (identical rows neither rewritten nor locked), between the
 * statements `alongside`. Rows believed new go in as they are (a COPY); others are probed first,
 * and only the groups not stored exactly as sent are upserted. Returns the rows inserted or
 * changed, by table.
 */
export async function writeFacts(
  trx: Transaction<Database>,
  tables: readonly FactGroups[],
  options: WriteFactsOptions,
): Promise<number[]> {
  const alongside = options.alongside ?? NOTHING_ALONGSIDE;
  const techniques = options.techniques ?? ALL_TECHNIQUES;
  for (const statement of alongside.first) await statement.execute(trx);
  const written: number[] = [];
  for (const { spec, groups: all } of tables) {
    const groups = all.filter((g) => g.rows.length > 0);
    if (groups.length === 0) {
      written.push(0);
      continue;
    }
    const { rows, groups: changed } = await write(trx, spec, groups, options, techniques);
    if (rows > 0 && techniques.exportMarks !== false) {
      await markExportPartitions(trx, spec.table, changed);
    }
    written.push(rows);
  }
  for (const statement of alongside.after(written.some((n) => n > 0))) {
    await statement.execute(trx);
  }
  return written;
}

/** One table's non-empty groups: inserted, or probed and the changed ones upserted. */
async function write(
  trx: Transaction<Database>,
  spec: FactTableSpec<FactRow>,
  groups: readonly LocatedRows<FactRow>[],
  options: WriteFactsOptions,
  techniques: WriteTechniques,
): Promise<{ rows: number; groups: readonly LocatedRows<FactRow>[] }> {
  if (options.assumeNew) {
    try {
      await newFactsStatement(spec, groups, techniques).execute(trx);
    } catch (error) {
      if (isUniqueViolation(error)) throw new RowsStoredAlready(spec.table, error);
      throw error;
    }
    return { rows: rowCount(groups), groups };
  }
  let changed = groups;
  if (techniques.digest) {
    const { rows: probed } = await probeStatement(spec, groups).execute(trx);
    changed = changedGroups(groups, probed, factDigests(spec, groups));
    if (changed.length === 0) return { rows: 0, groups: [] };
  }
  const upserted = await upsertStatement(spec, changed).execute(trx);
  return { rows: Number(upserted.numAffectedRows ?? 0n), groups: changed };
}

/**
 * Thrown by `writeFacts` with `assumeNew` when some of the rows are stored after all (a
 * concurrent landing of the same chunk, facts the ledger does not know of): the transaction is
 * aborted; run it again without the hint.
 */
export class RowsStoredAlready extends Error {
  constructor(table: string, cause: unknown) {
    super(`${table}: rows assumed new are stored already; land again without the hint`, {
      cause,
    });
    this.name = 'RowsStoredAlready';
  }
}
