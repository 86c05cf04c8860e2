import { RISK_LEVELS, type RiskLevel } from '../types.js';

/**
 * Field readers shared by the record parsers. Each one accepts what the service is known to send
 * for a field and throws `RecordRejection` for anything else, so one bad field rejects its record
 * (quarantined with the reason) instead of failing the payload or producing a wrong row.
 * `null` and a missing field both read as `undefined`: absent, never zero.
 */

/** Thrown by the readers; caught per record by the body parsers and turned into a `RejectedRecord`. */
export class RecordRejection extends Error {
  override readonly name = 'RecordRejection';
}

const DECIMAL = /^\s*-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
const RISK_SET: ReadonlySet<string> = new Set(RISK_LEVELS);

/** A JSON object as `JSON.parse` returns it. */
export type JsonObject = Record<string, unknown>;

/** Whether a parsed JSON value is an object (not an array, not `null`). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A finite number, or a decimal numeric string (`"52.52"`, as some responses send); else `undefined`. */
export function toFiniteNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && DECIMAL.test(value)) return Number(value);
  return undefined;
}

/** An optional number (numeric strings accepted). */
export function readNumber(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const number = toFiniteNumber(value);
  if (number === undefined) throw new RecordRejection(`${field} is not a number: ${show(value)}`);
  return number;
}

/** An optional pollen count: a non-negative integer (numeric strings accepted). */
export function readCount(value: unknown, field: string): number | undefined {
  const number = readNumber(value, field);
  if (number !== undefined && (!Number.isInteger(number) || number < 0)) {
    throw new RecordRejection(`${field} is not a non-negative integer count: ${show(value)}`);
  }
  return number;
}

/** An optional string; one Postgres can store (no NUL, see `checkStorableText`). */
export function readString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw new RecordRejection(`${field} is not a string: ${show(value)}`);
  checkStorableText(value, field);
  return value;
}

/**
 * Most UTF-8 bytes of a name that becomes part of a key (a species name): a btree index entry
 * holds at most about 2,700 bytes, and a longer key would fail the whole landing. Real names are
 * a few dozen characters (`Cypress / Juniper / Cedar`).
 */
export const MAX_KEY_BYTES = 1024;

/**
 * Rejects text Postgres cannot store: a NUL (U+0000) is refused by every `text` and `jsonb`
 * value, so one in a record would fail the landing of the whole chunk.
 */
export function checkStorableText(text: string, field: string): void {
  if (text.includes('\u0000')) {
    throw new RecordRejection(
      `${field} contains a NUL character (U+0000), which Postgres cannot store: ${show(text)}`,
    );
  }
}

/** Rejects a name used as a key that Postgres cannot store or index (NUL, over `MAX_KEY_BYTES`). */
export function checkStorableKey(name: string, field: string): void {
  checkStorableText(name, field);
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > MAX_KEY_BYTES) {
    throw new RecordRejection(
      `${field} is a name of ${bytes} bytes, over the ${MAX_KEY_BYTES} a key may have: ${show(name)}`,
    );
  }
}

/** An optional risk level: exactly `Low`, `Moderate`, `High` or `Very High`. */
export function readRiskLevel(value: unknown, field: string): RiskLevel | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && RISK_SET.has(value)) return value as RiskLevel;
  throw new RecordRejection(
    `${field} is not a risk level (Low, Moderate, High, Very High): ${show(value)}`,
  );
}

/** An optional object; anything else but `undefined`/`null` rejects the record. */
export function readObject(value: unknown, field: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isJsonObject(value)) throw new RecordRejection(`${field} is not an object: ${show(value)}`);
  return value;
}

/** A short, single-line rendering of a value for a rejection reason. */
export function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
