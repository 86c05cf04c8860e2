import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { FactRow } from './fact-table.js';
import { isNumericColumn, type FactColumn, type FactTableSpec } from './fact-table-spec.js';

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

const EPOCH_2000_MS = 946_684_800_000;
const TWO_32 = 4_294_967_296;
const FLOAT4_MIN_NORMAL = 1.1754943508222875e-38;
const OID = { timestamptz: 1184, real: 700, int: 23, smallint: 21, text: 25 } as const;

/** A growable buffer of big-endian values. */
class ByteWriter {
  private bytes = new Uint8Array(65_536);
  private view = new DataView(this.bytes.buffer);
  private length = 0;

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
    this.view = new DataView(next.buffer);
  }

  int16(value: number): void {
    this.room(2);
    this.view.setInt16(this.length, value);
    this.length += 2;
  }

  int32(value: number): void {
    this.room(4);
    this.view.setInt32(this.length, value);
    this.length += 4;
  }

  /** An integer of up to 53 bits as a two's-complement int64. */
  int64(value: number): void {
    this.room(8);
    const high = Math.floor(value / TWO_32);
    this.view.setInt32(this.length, high);
    this.view.setUint32(this.length + 4, value - high * TWO_32);
    this.length += 8;
  }

  float32(value: number): void {
    this.room(4);
    this.view.setFloat32(this.length, value);
    this.length += 4;
  }

  /** Byte length (int32), then the UTF-8 bytes. */
  utf8(value: string): void {
    this.room(4 + value.length * 3);
    const start = this.length + 4;
    let at = start;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code > 0x7f) {
        at = start + Buffer.from(this.bytes.buffer).write(value, start);
        break;
      }
      this.bytes[at++] = code;
    }
    this.view.setInt32(this.length, at - start);
    this.length = at;
  }

  sha256(): Buffer {
    return createHash('sha256').update(this.bytes.subarray(0, this.length)).digest();
  }
}

/**
 * Writes one column as `record_send` does; false when Postgres could store the value otherwise
 * than float4/int as written (or reject it), so the digest cannot stand for it.
 */
function writeColumn(out: ByteWriter, column: FactColumn<never>, value: unknown): boolean {
  const numeric = isNumericColumn(column);
  out.int32(numeric ? OID[column.type] : OID.text);
  if (value === null) {
    out.int32(-1);
    return true;
  }
  switch (column.type) {
    case 'real': {
      const v = value as number;
      if (Number.isFinite(v)) {
        // Postgres rejects what overflows or underflows float4; never skip past that error.
        const f = Math.fround(v);
        if (!Number.isFinite(f) || (v !== 0 && Math.abs(f) < FLOAT4_MIN_NORMAL)) return false;
        out.int32(4);
        out.float32(v === 0 ? 0 : f); // -0 is sent as "0"
      } else {
        out.int32(4);
        out.float32(v);
      }
      return true;
    }
    case 'int': {
      const v = value as number;
      if (!Number.isInteger(v) || v < -2_147_483_648 || v > 2_147_483_647) return false;
      out.int32(4);
      out.int32(v);
      return true;
    }
    case 'smallint': {
      const v = value as number;
      if (!Number.isInteger(v) || v < -32_768 || v > 32_767) return false;
      out.int32(2);
      out.int16(v);
      return true;
    }
    default:
      out.utf8(value as string);
      return true;
  }
}

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
    out.int32(8);
    out.int64((row.observedAt.getTime() - EPOCH_2000_MS) * 1_000);
    for (const column of columns) {
      if (!writeColumn(out, column as FactColumn<never>, column.value(row))) return undefined;
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
