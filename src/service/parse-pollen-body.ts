import { POLLEN_TYPES, type PollenType, type RiskLevel } from '../types.js';
import type {
  LatestPollenPayload,
  LatestRecord,
  PollenPayload,
  PollenRecord,
  PollenSpeciesCount,
} from './models.js';
import { parseJsonBody, type ParseContext, type PayloadSource } from './parse-envelope.js';
import { parsePayload } from './parse-payload.js';
import { parseRecordInstant, readRecordInstant } from './parse-record-instant.js';
import {
  RecordRejection,
  checkStorableKey,
  isJsonObject,
  readCount,
  readObject,
  readRiskLevel,
  readString,
  type JsonObject,
} from './record-fields.js';

/**
 * Parses the body of any pollen endpoint (latest, history, forecast, 120 h forecast) without
 * calling the service, e.g. to rebuild facts from an archived raw payload.
 *
 * Throws `MALFORMED_RESPONSE` when the envelope does not fit; a record that does not fit goes to
 * `rejected` and the valid ones are returned.
 *
 * @example parsePollenBody(archived.body).records[0]?.counts.tree
 */
export function parsePollenBody(body: string, source: PayloadSource = {}): PollenPayload {
  const context: ParseContext = { rawBody: body, ...source };
  return parsePollenDocument(parseJsonBody(context), context);
}

/** Like `parsePollenBody`, for a body already parsed with `JSON.parse` (the client parses once). */
export function parsePollenDocument(json: unknown, context: ParseContext): PollenPayload {
  return parsePayload(json, context, false, parsePollenRecord);
}

/**
 * `parsePollenDocument` for a latest answer (`/latest/pollen/by-*`): a record without any stamp
 * is kept with `at` undefined (`LatestRecord`) instead of refused.
 */
export function parseLatestPollenDocument(
  json: unknown,
  context: ParseContext,
): LatestPollenPayload {
  return parsePayload(json, context, false, parseLatestPollenRecord);
}

/** `Count`/`Risk` keys → pollen type. */
const TYPE_KEYS: readonly (readonly [string, PollenType])[] = POLLEN_TYPES.map((type) => [
  `${type}_pollen`,
  type,
]);
const COUNT_FIELDS = TYPE_KEYS.map(([key]) => `Count.${key}`);
const RISK_FIELDS = TYPE_KEYS.map(([key]) => `Risk.${key}`);

/** `Species` category keys → pollen type; `Others` is handled apart (a bare count). */
const SPECIES_CATEGORIES: ReadonlyMap<string, PollenType> = new Map([
  ['Tree', 'tree'],
  ['Grass', 'grass'],
  ['Weed', 'weed'],
]);

/**
 * One pollen record. Throws `RecordRejection` when it does not fit: not an object, no readable
 * stamp, a count that is not a non-negative integer, a risk that is not one of the four levels,
 * a `Species` map of the wrong shape, text Postgres cannot store (a NUL, a species name over
 * `MAX_KEY_BYTES`).
 */
export function parsePollenRecord(raw: unknown): PollenRecord {
  if (!isJsonObject(raw)) throw new RecordRejection('the record is not an object');
  return readPollenRecord(raw, parseRecordInstant(raw));
}

/** `parsePollenRecord` for a latest reading: one without any stamp is kept, `at` undefined. */
export function parseLatestPollenRecord(raw: unknown): LatestRecord<PollenRecord> {
  if (!isJsonObject(raw)) throw new RecordRejection('the record is not an object');
  return readPollenRecord(raw, readRecordInstant(raw));
}

/** The fields of a pollen record but its stamp, read already (`at`). */
function readPollenRecord<At extends Date | undefined>(
  raw: JsonObject,
  at: At,
): Omit<PollenRecord, 'at'> & { readonly at: At } {
  const timezone = readString(raw.timezone, 'timezone');
  const counts = readTypeMap(readObject(raw.Count, 'Count'), COUNT_FIELDS, readCount);
  const risks = readTypeMap(readObject(raw.Risk, 'Risk'), RISK_FIELDS, readRiskLevel);

  const speciesMap = readObject(raw.Species, 'Species');
  let species: PollenSpeciesCount[] | undefined;
  let othersCount: number | undefined;
  if (speciesMap !== undefined) {
    species = [];
    othersCount = readCount(speciesMap.Others, 'Species.Others');
    for (const [key, value] of Object.entries(speciesMap)) {
      const category = SPECIES_CATEGORIES.get(key);
      if (category === undefined) continue;
      const names = readObject(value, `Species.${key}`);
      if (names === undefined) continue;
      for (const name in names) {
        // Before the name is written into any reason: a NUL must not reach one either.
        checkStorableKey(name, `a species name of Species.${key}`);
        const rawCount = names[name];
        // Fast path for the usual integer; the reader (and its field name) only for the rest.
        const count =
          typeof rawCount === 'number' && Number.isInteger(rawCount) && rawCount >= 0
            ? rawCount
            : readCount(rawCount, `Species.${key}.${name}`);
        // An absent (null) species is unknown, not zero: leave it out.
        if (count !== undefined) species.push({ category, name, count });
      }
    }
  }

  return {
    at,
    timezone,
    counts,
    risks,
    species,
    othersCount,
    speciesRisk: readSpeciesRisk(raw),
  };
}

function readTypeMap<T>(
  map: Record<string, unknown> | undefined,
  fields: readonly string[],
  read: (value: unknown, field: string) => T | undefined,
): Partial<Record<PollenType, T>> {
  const out: Partial<Record<PollenType, T>> = {};
  if (map === undefined) return out;
  for (let i = 0; i < TYPE_KEYS.length; i += 1) {
    const [key, type] = TYPE_KEYS[i] as readonly [string, PollenType];
    const value = read(map[key], fields[i] as string);
    if (value !== undefined) out[type] = value;
  }
  return out;
}

/** Per-species risk, spelled `SpeciesRisk` or `Risks` (upstream shape [open]): name → level. */
function readSpeciesRisk(raw: Record<string, unknown>): Record<string, RiskLevel> | undefined {
  const field = raw.SpeciesRisk === undefined || raw.SpeciesRisk === null ? 'Risks' : 'SpeciesRisk';
  const map = readObject(raw[field], field);
  if (map === undefined) return undefined;
  const entries: [string, RiskLevel][] = [];
  for (const [name, value] of Object.entries(map)) {
    checkStorableKey(name, `a species name of ${field}`);
    const level = readRiskLevel(value, `${field}.${name}`);
    if (level !== undefined) entries.push([name, level]);
  }
  // fromEntries defines own properties, so a species named `__proto__` cannot touch the prototype.
  return Object.fromEntries(entries);
}
