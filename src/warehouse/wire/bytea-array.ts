import { sql, type RawBuilder } from 'kysely';
import { ByteWriter, OID } from './binary-values.js';

/**
 * Byte strings as ONE `bytea[]` parameter in binary (`array_send`): node-postgres sends a Buffer
 * as it is, where a `bytea[]` of Buffers would travel as hex text twice the size, to be decoded;
 * and the statement's text stays the same whatever their number (`named`).
 */
export function byteaArray(values: readonly Uint8Array[]): RawBuilder<unknown> {
  let bytes = 0;
  for (const value of values) bytes += 4 + value.length;
  const out = new ByteWriter(20 + bytes);
  out.int32(1); // dimensions
  out.int32(0); // has nulls
  out.int32(OID.bytea);
  out.int32(values.length);
  out.int32(1); // lower bound
  for (const value of values) out.lengthAndBytes(value);
  return sql`${out.bytesView()}::bytea[]`;
}
