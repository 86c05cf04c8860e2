import { sql, type Transaction } from 'kysely';
import { SHARE_FIELDS, type ShareField } from '../types.js';
import type { Database, SnapshotProduct } from './schema.js';
import { ArrayLiteral, instants } from './wire/index.js';
import type { FactRow } from './fact-rows.js';
import type { SnapshotTable } from './fact-table.js';

/** Shares of one stored snapshot row, as fractions, to fill where the row holds none. */
export interface SnapshotShareFill {
  readonly locationId: number;
  readonly product: SnapshotProduct;
  readonly fetchedAt: Date;
  readonly validAt: Date;
  readonly fractions: Readonly<Partial<Record<ShareField, number>>>;
}

/**
 * Writes each fill's fractions into its snapshot row of `table` (the row of that location,
 * product, fetch and hour) and into the table's current copy when the copy holds that fetch, in
 * `trx`: a column is written only while it is still empty, so a fill never overwrites a value.
 * Nothing for a table without shares. Returns the rows of `table` written.
 */
export async function fillSnapshotShares(
  trx: Transaction<Database>,
  table: SnapshotTable<FactRow>,
  fills: readonly SnapshotShareFill[],
): Promise<number> {
  const columns = SHARE_FIELDS.flatMap((field) => {
    const column = table.shareColumns?.[field];
    return column === undefined ? [] : [{ field, column }];
  });
  if (columns.length === 0 || fills.length === 0) return 0;
  const values = columns.map(({ field }) => {
    const literal = new ArrayLiteral();
    for (const fill of fills) literal.number(fill.fractions[field] ?? null);
    return literal.build();
  });
  const fillsOf = sql`unnest(${fills.map((f) => f.locationId)}::int[],
      ${fills.map((f) => f.product)}::text[],
      ${instants(fills.map((f) => f.fetchedAt))}::timestamptz[],
      ${instants(fills.map((f) => f.validAt))}::timestamptz[],
      ${sql.join(values.map((v) => sql`${v}::real[]`))})
    as f(location_id, product, fetched_at, valid_at, ${sql.join(columns.map((_, i) => sql.ref(`v${i}`)))})`;
  const set = sql.join(
    columns.map(
      ({ column }, i) =>
        sql`${sql.ref(column)} = coalesce(s.${sql.ref(column)}, f.${sql.ref(`v${i}`)})`,
    ),
  );
  const empty = sql.join(
    columns.map(
      ({ column }, i) => sql`(s.${sql.ref(column)} is null and f.${sql.ref(`v${i}`)} is not null)`,
    ),
    sql` or `,
  );
  const update = async (name: string, product: ReturnType<typeof sql.raw>) =>
    sql`
      update ${sql.table(`envdata.${name}`)} s set ${set}
      from ${fillsOf}
      where s.location_id = f.location_id and s.product = ${product}
        and s.fetched_at = f.fetched_at and s.valid_at = f.valid_at and (${empty})`.execute(trx);
  const written = await update(table.name, sql.raw('f.product::envdata.snapshot_product'));
  await update(`${table.name}_current`, sql.raw('f.product'));
  return Number(written.numAffectedRows ?? 0n);
}
