import type { Kysely } from 'kysely';
import pLimit from 'p-limit';
import { EnvdataError } from '../errors/envdata-error.js';
import type { ServiceClient } from '../service/service-client.js';
import type { Database } from '../warehouse/schema.js';
import { checkPointCountry } from './check-point-country.js';
import { describePlaceProblem, type PlaceChoice } from './choose-place-match.js';
import { describeConflict, findLocationConflicts } from './find-location-conflicts.js';
import { insertLocations, roundCoordinate } from './insert-location.js';
import { locatePlace } from './locate-place.js';
import type { Location, NewLocation } from './location.js';
import { locationTextProblem } from './location-text-problem.js';
import { matchCountryCode, matchLabel, matchName } from './match-name.js';
import type { LocationEntry, ParsedLocationFile } from './parse-location-file.js';

export interface ImportLocationsOptions {
  /** Geocoding calls in flight at once. Default 4. */
  readonly concurrency?: number;
}

export interface ImportOutcome {
  /** The registered locations, in file order. */
  readonly locations: readonly Location[];
  /** Calls made to `/geocode/by-place` (one per distinct place and country). */
  readonly geocodeCalls: number;
  /**
   * What the operator should know about rows that were registered anyway, by position: a
   * point's country envdata could not check (open sea, a border a few km away).
   */
  readonly warnings: readonly string[];
}

/** A row ready to insert, with where it came from. */
interface ResolvedRow {
  readonly ref: string;
  /** `line 12 (place "Berlin" → Berlin, Germany)` for place rows, `line 12` for points. */
  readonly label: string;
  readonly input: NewLocation;
}

/**
 * Registers every location of a parsed file, all or nothing. The whole file is validated before
 * anything is written: the rows themselves (`parseLocationFile`), then place rows are geocoded
 * through the service (`concurrency` calls at once, each distinct place once) and must be
 * unambiguous, then names and points must be unique within the file and against the warehouse
 * (retired locations included). Any problem is one `VALIDATION_FAILED` listing every bad row
 * with its line (CSV) or index (JSON); otherwise all rows are inserted in one transaction.
 *
 * A point's country is checked against its coordinates (`checkPointCountry`): a country the
 * point is clearly not in is a problem of that row; where the gazetteer cannot tell, the row is
 * kept with a warning. Names the service gives places are cleaned of control and bidirectional
 * characters (`matchName`); one that still cannot be a name (digits only) asks for a name column.
 *
 * When rows are already invalid, places are not geocoded (calls are billed): the problems found
 * without the service are reported first.
 *
 * A service failure other than "no match" (a refused key, a rate limit…) aborts the import with
 * that failure's code; `client` may be `undefined` only when the file has no place rows.
 */
export async function importLocations(
  db: Kysely<Database>,
  file: ParsedLocationFile,
  client: Pick<ServiceClient, 'geocode'> | undefined,
  options: ImportLocationsOptions = {},
): Promise<ImportOutcome> {
  const problems: string[] = [...file.problems];
  if (file.entries.length === 0 && problems.length === 0) {
    problems.push('the file has no rows');
  }
  const warnings: string[] = [];
  for (const entry of file.entries) {
    if (entry.kind !== 'point' || entry.country === undefined) continue;
    const verdict = checkPointCountry(entry.lat, entry.lng, entry.country);
    if (verdict.kind === 'refuse') problems.push(`${entry.ref}: country ${verdict.message}`);
    if (verdict.kind === 'warn') warnings.push(`${entry.ref}: country ${verdict.message}`);
  }
  const places = file.entries.filter((e) => e.kind === 'place');
  let geocodeCalls = 0;
  let choices = new Map<string, PlaceChoice>();
  if (problems.length === 0 && places.length > 0) {
    if (client === undefined) {
      throw new EnvdataError(
        'USAGE',
        `${places.length} row(s) give a place, which needs the service: set ENVDATA_API_KEY`,
      );
    }
    ({ choices, calls: geocodeCalls } = await geocodeAll(client, places, options.concurrency ?? 4));
  }

  const rows: ResolvedRow[] = [];
  for (const entry of file.entries) {
    if (entry.kind === 'point') {
      rows.push({
        ref: entry.ref,
        label: entry.ref,
        input: {
          name: entry.name,
          lat: entry.lat,
          lng: entry.lng,
          countryCode: entry.country ?? null,
          registeredBy: 'import',
        },
      });
      continue;
    }
    const choice = choices.get(placeKey(entry));
    if (choice === undefined) continue; // not geocoded: the file already has problems
    if (choice.kind !== 'match') {
      problems.push(
        `${entry.ref}: ${describePlaceProblem(
          entry.place,
          entry.country,
          choice,
          (codes) => `a country column (${codes.join(' or ')})`,
        )}`,
      );
      continue;
    }
    const { match } = choice;
    const label = `${entry.ref} (place "${entry.place}" → ${matchLabel(match) ?? matchName(match) ?? '?'})`;
    const name = entry.name ?? matchName(match) ?? entry.place;
    const nameProblem = entry.name === undefined ? locationTextProblem('name', name) : undefined;
    if (nameProblem !== undefined) {
      problems.push(
        `${label}: the service's name for this place ${nameProblem.problem}: give the row a name`,
      );
      continue;
    }
    rows.push({
      ref: entry.ref,
      label,
      input: {
        name,
        lat: match.lat,
        lng: match.lng,
        countryCode: entry.country ?? matchCountryCode(match),
        place: matchLabel(match) ?? entry.place,
        registeredBy: 'import',
      },
    });
  }

  problems.push(...duplicatesWithinFile(rows));
  const conflicts = await findLocationConflicts(
    db,
    rows.map((r) => r.input),
  );
  for (const conflict of conflicts) {
    const row = rows[conflict.index]!;
    problems.push(`${row.label}: ${describeConflict(row.input, conflict)}`);
  }

  if (problems.length > 0) {
    const notGeocoded =
      places.length > 0 && choices.size === 0
        ? `\n  (${places.length} place row(s) were not geocoded yet: no calls are spent on a file with problems)`
        : '';
    throw new EnvdataError(
      'VALIDATION_FAILED',
      `${problems.length} problem(s) in the file, nothing was written:\n` +
        sortByPosition(problems)
          .map((p) => `  ${p}`)
          .join('\n') +
        notGeocoded,
      { details: { problems } },
    );
  }
  const locations = await db.transaction().execute((trx) =>
    insertLocations(
      trx,
      rows.map((r) => r.input),
    ),
  );
  return { locations, geocodeCalls, warnings };
}

function placeKey(entry: Extract<LocationEntry, { kind: 'place' }>): string {
  return `${entry.place.toLowerCase()}\u0000${entry.country ?? ''}`;
}

/** Geocodes each distinct place once, `concurrency` at a time; the first service failure stops the rest. */
async function geocodeAll(
  client: Pick<ServiceClient, 'geocode'>,
  entries: readonly Extract<LocationEntry, { kind: 'place' }>[],
  concurrency: number,
): Promise<{ choices: Map<string, PlaceChoice>; calls: number }> {
  const limit = pLimit(concurrency);
  const distinct = new Map(entries.map((e) => [placeKey(e), e]));
  const choices = new Map<string, PlaceChoice>();
  let calls = 0;
  try {
    await Promise.all(
      [...distinct].map(([key, entry]) =>
        limit(async () => {
          calls += 1;
          choices.set(key, await locatePlace(client, entry.place, entry.country));
        }),
      ),
    );
  } catch (error) {
    limit.clearQueue();
    throw error;
  }
  return { choices, calls };
}

/** Second and later rows repeating a name (case-insensitive) or a point (4 decimals). */
function duplicatesWithinFile(rows: readonly ResolvedRow[]): string[] {
  const problems: string[] = [];
  const names = new Map<string, ResolvedRow>();
  const points = new Map<string, ResolvedRow>();
  for (const row of rows) {
    const name = row.input.name.trim().toLowerCase();
    const lat = roundCoordinate(row.input.lat);
    const lng = roundCoordinate(row.input.lng);
    const point = `${lat},${lng}`;
    const sameName = names.get(name);
    if (sameName) {
      problems.push(`${row.label}: the name "${row.input.name.trim()}" is also on ${sameName.ref}`);
    } else {
      names.set(name, row);
    }
    const samePoint = points.get(point);
    if (samePoint) {
      problems.push(
        `${row.label}: the point ${lat}, ${lng} is also on ${samePoint.ref} ("${samePoint.input.name}")`,
      );
    } else {
      points.set(point, row);
    }
  }
  return problems;
}

/** Problems in file order (`line 3` before `line 12`), stable for problems on the same row. */
function sortByPosition(problems: readonly string[]): string[] {
  const position = (p: string) => Number(/^(?:line|index) (\d+)/.exec(p)?.[1] ?? -1);
  return [...problems].sort((a, b) => position(a) - position(b));
}
