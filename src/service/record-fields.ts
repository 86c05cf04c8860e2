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

/** An optional string. */
export function readString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw new RecordRejection(`${field} is not a string: ${show(value)}`);
  return value;
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
