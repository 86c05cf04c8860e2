import { sql, type RawBuilder } from 'kysely';
import { ByteWriter, OID, sendValue } from './binary-values.js';
import type { FactColumn } from '../fact-table-spec.js';

/**
 * A one-dimensional Postgres array in binary form (`array_send`), passed as ONE parameter
 * (`$1::real[]`): no digit formatted here nor parsed by the server.
 *
 * @example
 * const values = new BinaryArray(sendOid(column)); // column: a `real` FactColumn
 * for (const row of rows) if (!values.add(column, column.value(row))) return textPath();
 * sql`select unnest(${values.build()}::real[])`;
 */
export class BinaryArray {
  private readonly out: ByteWriter;
  private count = 0;
  private nulls = 0;

  /**
   * `elementOid`: the OID of the array's element type as it is sent (`OID.real`, …);
   * `capacity`: the bytes to reserve (the array grows past it), say 12 per `real` element.
   */
  constructor(elementOid: number, capacity = 4_096) {
    this.out = new ByteWriter(20 + capacity);
    this.out.int32(1); // dimensions
    this.out.int32(0); // has nulls: set by build()
    this.out.int32(elementOid);
    this.out.int32(0); // elements: set by build()
    this.out.int32(1); // lower bound
  }

  /**
   * Adds `value` as `column` sends it; false (nothing added) when its binary form could not
   * stand for the value Postgres would store (see `sendValue`): the caller sends text instead.
   */
  add(column: FactColumn<never>, value: unknown): boolean {
    if (!sendValue(this.out, column, value)) return false;
    this.count++;
    if (value === null) this.nulls++;
    return true;
  }

  /** Adds an instant (the array's elements must be `timestamptz`). */
  instant(value: Date): void {
    this.out.instant(value);
    this.count++;
  }

  /** Adds an `int4` the caller knows is one (an id). */
  int(value: number): void {
    this.out.int32(4);
    this.out.int32(value);
    this.count++;
  }

  /** Adds a `bytea` (the array's elements must be `bytea`). */
  bytes(value: Uint8Array): void {
    this.out.lengthAndBytes(value);
    this.count++;
  }

  /** The array's bytes (sharing this builder's memory: add nothing after). */
  build(): Buffer {
    this.out.int32At(4, this.nulls > 0 ? 1 : 0);
    this.out.int32At(12, this.count);
    return this.out.bytesView();
  }
}

/**
 * Byte strings as ONE `bytea[]` parameter in binary: node-postgres sends a Buffer as it is, where
 * a `bytea[]` of Buffers would travel as hex text twice the size, to be decoded; and the
 * statement's text stays the same whatever their number (`named`).
 */
export function byteaArray(values: readonly Uint8Array[]): RawBuilder<unknown> {
  let bytes = 0;
  for (const value of values) bytes += 4 + value.length;
  const array = new BinaryArray(OID.bytea, bytes);
  for (const value of values) array.bytes(value);
  return sql`${array.build()}::bytea[]`;
}
