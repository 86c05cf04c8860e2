import { createHash } from 'node:crypto';
import type { FactColumn } from '../fact-table-spec.js';
import { isNumericColumn } from '../fact-table-spec.js';

/**
 * Values in Postgres's binary send form (big-endian, as `array_send` writes them). `sendValue`
 * refuses a value whose binary form could differ from Postgres reading its text: it goes as text.
 */

const EPOCH_2000_MS = 946_684_800_000;
const TWO_32 = 4_294_967_296;
const FLOAT4_MIN_NORMAL = 1.1754943508222875e-38;

/** Type OIDs of the send forms written here (enums travel as `text`). */
export const OID = {
  timestamptz: 1184,
  real: 700,
  int: 23,
  smallint: 21,
  text: 25,
  bytea: 17,
} as const;

/** The OID a column's values are sent as: its own, or `text` for text and enum columns. */
export function sendOid(column: FactColumn<never>): number {
  return isNumericColumn(column) ? OID[column.type] : OID.text;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * Whether the double `v` lies exactly halfway between two adjacent float4: then `Math.fround`
 * rounds it to even while Postgres, reading its shortest decimal text, rounds to the side that
 * decimal lies on. Any other double rounds to float4 the same both ways.
 */
function isFloat4Midpoint(v: number, rounded: number): boolean {
  f32[0] = rounded;
  // The float4 next to `rounded` on v's side: one unit in the last place away in magnitude.
  u32[0] = Math.abs(v) > Math.abs(rounded) ? u32[0]! + 1 : u32[0]! - 1;
  return (rounded + f32[0]!) / 2 === v;
}

/** A growable buffer of big-endian values. */
export class ByteWriter {
  private bytes: Uint8Array;
  private view: DataView;
  private length = 0;

  constructor(capacity = 65_536) {
    this.bytes = new Uint8Array(capacity);
    this.view = new DataView(this.bytes.buffer);
  }

  get size(): number {
    return this.length;
  }

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

  /** Overwrites the int32 at `offset` (a count known only at the end). */
  int32At(offset: number, value: number): void {
    this.view.setInt32(offset, value);
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

  /** Byte length (int32), then the bytes as they are (a `bytea`). */
  lengthAndBytes(value: Uint8Array): void {
    this.room(4 + value.length);
    this.view.setInt32(this.length, value.length);
    this.bytes.set(value, this.length + 4);
    this.length += 4 + value.length;
  }

  /** An instant: length 8, then µs since 2000-01-01 UTC. */
  instant(value: Date): void {
    this.int32(8);
    this.int64((value.getTime() - EPOCH_2000_MS) * 1_000);
  }

  sha256(): Buffer {
    return createHash('sha256').update(this.bytes.subarray(0, this.length)).digest();
  }

  /** The bytes written, as a Buffer over this writer's memory (no copy). */
  bytesView(): Buffer {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.length);
  }
}

/**
 * Writes one value of `column` as its length (int32; -1 for NULL) and binary send form, or
 * returns false, writing nothing, when the send form could not stand for the value Postgres
 * would store (see the module's comment).
 */
export function sendValue(out: ByteWriter, column: FactColumn<never>, value: unknown): boolean {
  if (value === null) {
    out.int32(-1);
    return true;
  }
  switch (column.type) {
    case 'real': {
      const v = value as number;
      if (Number.isFinite(v)) {
        // Postgres rejects what overflows or underflows float4; never write past that error.
        const f = Math.fround(v);
        if (!Number.isFinite(f) || (v !== 0 && Math.abs(f) < FLOAT4_MIN_NORMAL)) return false;
        if (f !== v && isFloat4Midpoint(v, f)) return false;
        out.int32(4);
        out.float32(v === 0 ? 0 : f); // -0 is sent as "0"
      } else {
        out.int32(4);
        out.float32(v); // NaN, ±Infinity
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
    default: {
      const v = value as string;
      if (v.includes('\0')) return false;
      out.utf8(v);
      return true;
    }
  }
}
