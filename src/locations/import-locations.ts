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
import { locationAliasOf } from './location-alias-of.js';
import { locationNameKey } from './location-name-key.js';
import { locationTextProblem } from './location-text-problem.js';
import { matchCountryCode, matchLabel, matchName } from './match-name.js';
import { pointCountryCode } from './point-country-code.js';
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
   * point's country envdata could not check (open sea, a border a few km away), a point without
   * a country left without one (a border a few km away), a named place row whose place text was
   * not kept as an alias because it reads as another name.
   */
  readonly warnings: readonly string[];
}

/** A row ready to insert, with where it came from. */
interface ResolvedRow {
  readonly ref: string;
  /** `line 12 (place "Berlin" → Berlin, Germany)` for place rows, `line 12` for points. */
  readonly label: string;
  /** Whether the file gave the name (a place row's name may come from the service). */
  readonly named: boolean;
  input: NewLocation;
}

/**
 * Registers every location of a parsed file, all or nothing. The whole file is validated before
 * anything is written: the rows themselves (`parseLocationFile`), then place rows are geocoded
 * through the service (`concurrency` calls at once, each distinct place once) and must be
 * unambiguous, then names and points must be unique within the file and against the warehouse
 * (retired locations included), names as they read (`locationNameKey`). A place row's place
 * text is kept as an alias of its location (`locationAliasOf`), unique like names; one that
 * reads as another name or alias is a problem of the row, or, when the row gives its own name,
 * is dropped with a warning. A point without a country gets the one it lies in
 * (`pointCountryCode`). Any problem is one `VALIDATION_FAILED` listing every bad row
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
      let countryCode = entry.country ?? null;
      if (countryCode === null) {
        const found = pointCountryCode(entry.lat, entry.lng);
        countryCode = found.countryCode;
        if (found.warning !== undefined) warnings.push(`${entry.ref}: ${found.warning}`);
      }
      rows.push({
        ref: entry.ref,
        label: entry.ref,
        named: true,
        input: {
          name: entry.name,
          lat: entry.lat,
          lng: entry.lng,
          countryCode,
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
      named: entry.name !== undefined,
      input: {
        name,
        lat: match.lat,
        lng: match.lng,
        countryCode: entry.country ?? matchCountryCode(match),
        place: matchLabel(match) ?? entry.place,
        alias: entry.place,
        registeredBy: 'import',
      },
    });
  }

  problems.push(...duplicatesWithinFile(rows, warnings));
  const conflicts = await findLocationConflicts(
    db,
    rows.map((r) => r.input),
  );
  for (const conflict of conflicts) {
    const row = rows[conflict.index]!;
    const text = describeConflict(row.input, conflict);
    if (conflict.on === 'alias' && row.named) {
      warnings.push(`${row.label}: the place text is not kept as another name of the row: ${text}`);
      row.input = { ...row.input, alias: null };
    } else {
      problems.push(
        `${row.label}: ${text}${conflict.on === 'alias' ? ': give the row a name of its own (the place text is then not kept), or write the place so that it reads as no other location' : ''}`,
      );
    }
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

/**
 * Second and later rows repeating a name (as it reads, `locationNameKey`) or a point (4
 * decimals); then place texts kept as aliases that read as a name in the file or an earlier
 * row's alias: a problem of the row, or, when the row gives its own name, the alias is dropped
 * with a warning (pushed to `warnings`).
 */
function duplicatesWithinFile(rows: ResolvedRow[], warnings: string[]): string[] {
  const problems: string[] = [];
  const texts = new Map<string, { row: ResolvedRow; text: string; as: 'name' | 'place' }>();
  const points = new Map<string, ResolvedRow>();
  for (const row of rows) {
    const name = row.input.name.normalize('NFC').trim();
    const key = locationNameKey(name);
    const same = texts.get(key);
    if (same === undefined) texts.set(key, { row, text: name, as: 'name' });
    else problems.push(`${row.label}: the name "${name}" ${alsoOn(same, name)}`);
    const lat = roundCoordinate(row.input.lat);
    const lng = roundCoordinate(row.input.lng);
    const point = `${lat},${lng}`;
    const samePoint = points.get(point);
    if (samePoint) {
      problems.push(
        `${row.label}: the point ${lat}, ${lng} is also on ${samePoint.ref} ("${samePoint.input.name}")`,
      );
    } else {
      points.set(point, row);
    }
  }
  for (const row of rows) {
    const alias = locationAliasOf(row.input.name, row.input.alias);
    if (alias === undefined) continue;
    const key = locationNameKey(alias);
    const same = texts.get(key);
    if (same === undefined) {
      texts.set(key, { row, text: alias, as: 'place' });
      continue;
    }
    const clash = `the place "${alias}" (kept as another name of the row) ${alsoOn(same, alias)}`;
    if (row.named) {
      warnings.push(`${row.label}: ${clash}: not kept`);
      row.input = { ...row.input, alias: null };
    } else {
      problems.push(
        `${row.label}: ${clash}: give the row a name of its own (the place text is then not kept), or write the place so that it reads as no other row`,
      );
    }
  }
  return problems;
}

function alsoOn(
  same: { row: ResolvedRow; text: string; as: 'name' | 'place' },
  text: string,
): string {
  return same.text === text && same.as === 'name'
    ? `is also on ${same.row.ref}`
    : `reads as the ${same.as} "${same.text}" on ${same.row.ref}`;
}

/** Problems in file order (`line 3` before `line 12`), stable for problems on the same row. */
function sortByPosition(problems: readonly string[]): string[] {
  const position = (p: string) => Number(/^(?:line|index) (\d+)/.exec(p)?.[1] ?? -1);
  return [...problems].sort((a, b) => position(a) - position(b));
}
