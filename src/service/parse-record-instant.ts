import {
  RecordRejection,
  isJsonObject,
  show,
  toFiniteNumber,
  type JsonObject,
} from './record-fields.js';

/** The stamp keys a record may carry, in order of preference (upstream spec, pollen history). */
export const INSTANT_KEYS = ['time', 'timestamp', 'updatedAt', 'createdAt'] as const;

// Instants outside these years are not data of this service: most likely milliseconds sent as
// seconds (1.6e12 s is the year 52 000), which would otherwise become a silently wrong row.
const MIN_MS = Date.UTC(1900, 0, 1);
const MAX_MS = Date.UTC(2200, 0, 1);

/** Why a record without any stamp is refused where one is required. */
const NO_TIMESTAMP = `no timestamp (expected one of ${INSTANT_KEYS.join(', ')})`;

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * The UTC instant of a record: the first of `time`, `timestamp`, `updatedAt`, `createdAt` that is
 * present decides. A number or numeric string is epoch seconds; any other string must be ISO-8601
 * (a missing offset means UTC, never local time). Throws `RecordRejection` when no stamp is present
 * or the deciding one is unreadable.
 */
export function parseRecordInstant(record: JsonObject): Date {
  const at = readRecordInstant(record);
  if (at === undefined) throw new RecordRejection(NO_TIMESTAMP);
  return at;
}

/**
 * Like `parseRecordInstant`, but `undefined` when the record has no stamp at all (every stamp key
 * absent or `null`): a latest reading may come so, and is stamped with the hour it was fetched in
 * (`stampAtFetch`). A stamp that is present but unreadable still throws `RecordRejection`.
 */
export function readRecordInstant(record: JsonObject): Date | undefined {
  for (const key of INSTANT_KEYS) {
    const value = record[key];
    if (value === undefined || value === null) continue;
    const ms = instantMs(value);
    if (ms === undefined)
      throw new RecordRejection(`${key} is not a readable instant: ${show(value)}`);
    if (ms < MIN_MS || ms >= MAX_MS) {
      if (millisecondsMs(value) !== undefined) {
        throw new RecordRejection(
          `${key} is epoch milliseconds, not seconds: ${show(value)} (the unit of its other values is in doubt too)`,
        );
      }
      throw new RecordRejection(`${key} is outside the years 1900–2199: ${show(value)}`);
    }
    return new Date(ms);
  }
  return undefined;
}

/**
 * The instant of a record the parser rejected, when its stamp is readable: the record's hour is
 * then quarantined rather than missing upstream. A stamp that is clearly epoch milliseconds (a
 * number of seconds beyond 2199 that, read as milliseconds, falls within 1900–2199) places its
 * record too: it says which hour the record was for, even though the record is not landed.
 * `undefined` for a record with no readable stamp (not an object, an empty record, garbage).
 */
export function rejectedRecordInstant(raw: unknown): Date | undefined {
  if (!isJsonObject(raw)) return undefined;
  try {
    return parseRecordInstant(raw);
  } catch (error) {
    if (!(error instanceof RecordRejection)) throw error;
  }
  const key = INSTANT_KEYS.find((k) => raw[k] !== undefined && raw[k] !== null);
  const ms = key === undefined ? undefined : millisecondsMs(raw[key]);
  return ms === undefined ? undefined : new Date(ms);
}

/** A numeric stamp read as epoch milliseconds, when it is one: beyond 2199 as seconds, before as milliseconds. */
function millisecondsMs(value: unknown): number | undefined {
  const number = toFiniteNumber(value);
  if (number === undefined) return undefined;
  const ms = Math.round(number);
  return ms * 1000 >= MAX_MS && ms < MAX_MS ? ms : undefined;
}

function instantMs(value: unknown): number | undefined {
  const seconds = toFiniteNumber(value);
  if (seconds !== undefined) return Math.round(seconds * 1000);
  if (typeof value === 'string') return parseIsoMs(value.trim());
  return undefined;
}

/** Epoch milliseconds of an ISO-8601 date-time; no offset means UTC. `undefined` if not a real instant. */
export function parseIsoMs(text: string): number | undefined {
  const m = ISO.exec(text);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4] ?? 0);
  const minute = Number(m[5] ?? 0);
  const second = Number(m[6] ?? 0);
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Reject days that do not exist in the month (Date.UTC would roll them over).
  if (new Date(local).getUTCDate() !== day) return undefined;
  return local - offsetMs(m[8]);
}

function offsetMs(zone: string | undefined): number {
  if (zone === undefined || zone === 'Z' || zone === 'z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || '0');
  return sign * (hours * 60 + minutes) * 60_000;
}
