import type { Kysely, Transaction } from 'kysely';
import type { FactRow } from '../../src/warehouse/fact-rows.js';
import type { FactTableSpec } from '../../src/warehouse/fact-table-spec.js';
import type { LocatedRows } from '../../src/warehouse/located-rows.js';
import type { Database } from '../../src/warehouse/schema.js';
import { RowsStoredAlready, writeFacts } from '../../src/warehouse/write-facts.js';

/**
 * Writes one table's fact rows as the `FactWriter` writes a batch (`writeFacts`), without a
 * ledger: identical rows neither rewritten nor locked. Opens a transaction when given none, and
 * then lands again with the probe should rows believed new be stored already. Returns the rows
 * written.
 *
 * @example await upsertFacts(db, WEATHER_HOURLY.spec, [{ locationId: 7, rows }]);
 */
export async function upsertFacts<Row extends FactRow>(
  db: Kysely<Database> | Transaction<Database>,
  table: FactTableSpec<Row>,
  groups: readonly LocatedRows<Row>[],
  hint: { readonly assumeNew: boolean } = { assumeNew: false },
): Promise<number> {
  const tables = [{ spec: table as FactTableSpec<FactRow>, groups }];
  if (db.isTransaction) {
    const [written] = await writeFacts(db as Transaction<Database>, tables, hint);
    return written!;
  }
  const write = (assumeNew: boolean) =>
    db.transaction().execute(async (trx) => (await writeFacts(trx, tables, { assumeNew }))[0]!);
  return write(hint.assumeNew).catch((error: unknown) => {
    if (error instanceof RowsStoredAlready) return write(false);
    throw error;
  });
}
