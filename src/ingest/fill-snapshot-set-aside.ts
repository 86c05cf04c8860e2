import { sql, type Kysely, type Transaction } from 'kysely';
import { datasetDefinition } from '../datasets/registry.js';
import { readShareUnits } from '../ledger/share-unit.js';
import {
  SNAPSHOT_NOTE_KEY,
  type SnapshotSetAsideNote,
} from '../ledger/record-snapshot-set-aside.js';
import type { Logger } from '../logging/create-logger.js';
import { fractionOf } from '../normalize/fraction-of.js';
import {
  readShareUnitUnknownReason,
  SET_ASIDE_REASONS,
  shareUnitUnknownReason,
} from '../normalize/set-aside-reason.js';
import type { Dataset, ShareField, ShareUnits } from '../types.js';
import { fillSnapshotShares, type SnapshotShareFill } from '../warehouse/fill-snapshot-shares.js';
import type { FactRow } from '../warehouse/fact-rows.js';
import type { Database, SnapshotProduct } from '../warehouse/schema.js';
import type { SnapshotTable } from '../warehouse/fact-table.js';

/** The most records one transaction of a fill takes; the next takes the rest. */
const BATCH = 1_000;

/** Which snapshot values set aside to look for: of a dataset's product, of some fields. */
export interface SnapshotFillScope {
  readonly dataset: Dataset;
  readonly product: SnapshotProduct;
  /** The fields to fill; every field the ledger knows the unit of when absent. */
  readonly fields?: readonly ShareField[];
}

/** What one fill did. */
export interface SnapshotFill {
  /** Records whose every value set aside is now stored (their quarantine rows gone). */
  readonly records: number;
  /** Records filled in part: their quarantine rows name only the values still set aside. */
  readonly partly: number;
  /** Values stored. */
  readonly values: number;
}

interface SetAsideRow {
  readonly quarantine_id: string;
  readonly location_id: number;
  readonly observed_at: Date;
  readonly reason: string;
  readonly raw: Record<string, unknown>;
}

/**
 * Fills, with no call, the shares of stored snapshots (latest readings, forecasts) of
 * `scope.product` of `scope.dataset` set aside because their field's unit was unknown, for the
 * fields whose unit the ledger now knows for that product (`envdata.share_unit`: taught by an
 * answer of the same product, never another's): each value is read from its quarantine row's
 * record in that unit (`fractionOf`, as `normalizeWeather` reads it), written into the
 * snapshot row of its fetch and into the current copy when that copy holds the fetch, and its
 * quarantine row goes (or names only the values still set aside). One transaction per
 * `BATCH` records; a record being filled by another worker is waited for, then read as that
 * fill left it.
 *
 * Only values of a field the answer could not tell (only 0s and 1s) are filled: a field an
 * answer contradicted stays set aside. A dataset without shares (pollen) has nothing to fill.
 */
export async function fillSnapshotSetAside(
  db: Kysely<Database>,
  logger: Logger,
  scope: SnapshotFillScope,
): Promise<SnapshotFill> {
  const { dataset, product } = scope;
  const tables = datasetDefinition(dataset).snapshots.tables.filter(
    (t) => t.shareColumns !== undefined,
  );
  let total: SnapshotFill = { records: 0, partly: 0, values: 0 };
  if (tables.length === 0) return total;
  let after = '0';
  for (;;) {
    const batch = await db.transaction().execute((trx) => fillBatch(trx, scope, tables, after));
    total = {
      records: total.records + batch.records,
      partly: total.partly + batch.partly,
      values: total.values + batch.values,
    };
    if (batch.last === undefined) break;
    after = batch.last;
  }
  if (total.values > 0) {
    logger.info(
      { dataset, product, ...total },
      'snapshot shares set aside for an unknown unit filled, the unit now told (0 calls)',
    );
  }
  return total;
}

/**
 * One transaction of `fillSnapshotSetAside`: the records after quarantine id `after`. `last`:
 * the last id read when the batch was full (more may follow), else `undefined`.
 */
async function fillBatch(
  trx: Transaction<Database>,
  scope: SnapshotFillScope,
  tables: readonly SnapshotTable<FactRow>[],
  after: string,
): Promise<SnapshotFill & { readonly last?: string }> {
  const none = { records: 0, partly: 0, values: 0 };
  const { dataset, product } = scope;
  const remembered = await readShareUnits(trx, dataset, product);
  const known: ShareUnits = Object.fromEntries(
    Object.entries(remembered).filter(
      ([field]) => scope.fields?.includes(field as ShareField) ?? true,
    ),
  );
  const fields = Object.keys(known);
  if (fields.length === 0) return none;
  const { rows } = await sql<SetAsideRow>`
    select quarantine_id, location_id, observed_at, reason, raw
    from envdata.quarantine
    where chunk_id is null and source = ${`${dataset}_${product}`}
      and starts_with(reason, ${SET_ASIDE_REASONS.shareUnitUnknown})
      and location_id is not null and observed_at is not null
      and raw -> ${SNAPSHOT_NOTE_KEY}::text -> 'unitUntold' ?| ${fields}::text[]
      and quarantine_id > ${after}::bigint
    order by quarantine_id
    limit ${BATCH}
    for update`.execute(trx);
  const last = rows.length === BATCH ? rows[rows.length - 1]!.quarantine_id : undefined;
  const fills: SnapshotShareFill[] = [];
  const done: string[] = [];
  const rewritten: { id: string; reason: string }[] = [];
  for (const row of rows) {
    const named = readShareUnitUnknownReason(row.reason);
    const note = row.raw[SNAPSHOT_NOTE_KEY] as SnapshotSetAsideNote | undefined;
    if (!named || !note) continue;
    const fractions: Partial<Record<ShareField, number>> = {};
    const left = named.values.filter(([field]) => {
      const unit = known[field as ShareField];
      const value = row.raw[field];
      if (unit === undefined || !note.unitUntold.includes(field as ShareField)) return true;
      const fraction = typeof value === 'number' ? fractionOf(value, unit) : undefined;
      if (fraction === undefined) return true;
      fractions[field as ShareField] = fraction;
      return false;
    });
    if (left.length === named.values.length) continue;
    fills.push({
      locationId: row.location_id,
      product,
      fetchedAt: new Date(note.fetchedAt),
      validAt: row.observed_at,
      fractions,
    });
    if (left.length === 0) done.push(row.quarantine_id);
    else
      rewritten.push({
        id: row.quarantine_id,
        reason: shareUnitUnknownReason(left, named.because),
      });
  }
  if (fills.length === 0) return { ...none, last };
  for (const table of tables) await fillSnapshotShares(trx, table, fills);
  if (done.length > 0) {
    await sql`delete from envdata.quarantine where quarantine_id = any(${done}::bigint[])`.execute(
      trx,
    );
  }
  if (rewritten.length > 0) {
    await sql`
      update envdata.quarantine q set reason = r.reason
      from unnest(${rewritten.map((r) => r.id)}::bigint[], ${rewritten.map((r) => r.reason)}::text[])
        as r(quarantine_id, reason)
      where q.quarantine_id = r.quarantine_id`.execute(trx);
  }
  const values = fills.reduce((n, f) => n + Object.keys(f.fractions).length, 0);
  return { records: done.length, partly: rewritten.length, values, last };
}
