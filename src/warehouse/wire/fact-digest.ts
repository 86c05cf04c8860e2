import { sql, type RawBuilder } from 'kysely';
import type { FactRow } from '../fact-rows.js';
import { ByteWriter, sendOid, sendValue, OID } from './binary-values.js';
import { isNumericColumn, type FactColumn, type FactTableSpec } from '../fact-table-spec.js';

/**
 * A digest of fact rows that Postgres computes the same way over stored rows: SHA-256 of the
 * rows in key order, each row as `record_send(row(observed_at, <key…>, <columns…>))` writes it
 * (column count, then per column its type OID, byte length or -1 for NULL, and binary send form:
 * int64 µs since 2000 for `timestamptz`, float4, int4, int2, UTF-8 text; enums as text).
 *
 * Equal digests over the same number of rows mean the stored rows are these rows, value for
 * value: re-landing them can skip sending them at all. Unequal digests prove nothing (a value
 * JS and Postgres round differently to float4, another row order): the upsert then decides.
 */

/**
 * The digest of `rows` as `storedDigest` computes it over stored rows, or `undefined` when a value
 * could not be encoded exactly (then only the upsert can tell whether it changed).
 */
export function factDigest<Row extends FactRow>(
  table: FactTableSpec<Row>,
  rows: readonly Row[],
): Buffer | undefined {
  const sorted = inKeyOrder(table, rows);
  const out = new ByteWriter();
  const columns = [...table.key, ...table.columns] as readonly FactColumn<Row>[];
  for (const row of sorted) {
    out.int32(1 + columns.length);
    out.int32(OID.timestamptz);
    out.instant(row.observedAt);
    for (const column of columns) {
      out.int32(sendOid(column as FactColumn<never>));
      if (!sendValue(out, column as FactColumn<never>, column.value(row))) return undefined;
    }
  }
  return out.sha256();
}

/** Rows ordered by hour, then key columns (numbers numerically, strings by code unit). */
function inKeyOrder<Row extends FactRow>(
  table: FactTableSpec<Row>,
  rows: readonly Row[],
): readonly Row[] {
  // Each row's key read once (a species id is a lookup), then compared as often as needed.
  const hours = rows.map((r) => r.observedAt.getTime());
  const keys = table.key.map((column) => rows.map((r) => column.value(r) ?? ''));
  const compare = (a: number, b: number): number => {
    const d = hours[a]! - hours[b]!;
    if (d !== 0) return d;
    for (const values of keys) {
      const x = values[a]!;
      const y = values[b]!;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
  for (let i = 1; i < rows.length; i++) {
    if (compare(i - 1, i) > 0) {
      return rows
        .map((_, j) => j)
        .sort(compare)
        .map((j) => rows[j]!);
    }
  }
  return rows;
}

/**
 * `sha256(string_agg(record_send(row(…)) …))` over the rows of `alias`, as `factDigest` computes
 * it: an aggregate for a select over stored rows. String keys are ordered as bytes (`collate
 * "C"`), which is JS code-unit order for the ASCII keys fact tables have.
 */
export function storedDigest<Row extends FactRow>(
  table: FactTableSpec<Row>,
  alias: string,
): RawBuilder<Buffer | null> {
  const columns = [...table.key, ...table.columns] as readonly FactColumn<Row>[];
  const fields = [
    `${alias}.observed_at`,
    ...columns.map((c) => (isNumericColumn(c) ? `${alias}.${c.name}` : `${alias}.${c.name}::text`)),
  ];
  const order = [
    `${alias}.observed_at`,
    ...table.key.map((k) =>
      isNumericColumn(k) ? `${alias}.${k.name}` : `${alias}.${k.name}::text collate "C"`,
    ),
  ];
  return sql<Buffer | null>`sha256(string_agg(record_send(row(${sql.raw(fields.join(', '))})),
    ''::bytea order by ${sql.raw(order.join(', '))}))`;
}
