import type { Insertable, Kysely, Selectable } from 'kysely';
import { EnvdataError } from '../errors/envdata-error.js';
import { isUniqueViolation } from '../errors/pg-errors.js';
import { pollenRegionOf } from '../geo/pollen-region-of.js';
import { timezoneOf } from '../geo/timezone-of.js';
import type { Database, LocationTable } from '../warehouse/schema.js';
import type { Location, NewLocation } from './location.js';
import { locationAliasOf } from './location-alias-of.js';
import { locationNameKey } from './location-name-key.js';
import { locationTextMessage } from './location-text-problem.js';

/** Rows per INSERT statement of `insertLocations` (11 parameters a row, far below pg's 65,535). */
const INSERT_BATCH = 500;

/** Coordinates are kept to 4 decimals (about 11 m), as the service's clients send them. */
export function roundCoordinate(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}

/**
 * Registers a location: time zone computed locally from the coordinates, pollen region from the
 * interface's region table, its alias (`locationAliasOf`) kept beside it. A name or alias that
 * reads as one already registered (`locationNameKey`), or a duplicate point, is a `CONFLICT` and
 * writes nothing.
 */
export async function insertLocation(db: Kysely<Database>, input: NewLocation): Promise<Location> {
  const [location] = await insertLocations(db, [input], (error) => {
    const row = locationRowOf(input);
    return new EnvdataError(
      'CONFLICT',
      `a location named "${row.name}" (or answering to it) or at ${row.lat}, ${row.lng} is already registered: see \`envdata locations list\``,
      { cause: error },
    );
  });
  return location!;
}

/**
 * Registers many locations with a few multi-row INSERTs, in input order, with their aliases.
 * Runs in one transaction (the caller's, when given one), so it is all or nothing; any name,
 * alias or point already taken is a `CONFLICT` (the caller is expected to have checked, so this
 * is the race with another writer).
 */
export async function insertLocations(
  db: Kysely<Database>,
  inputs: readonly NewLocation[],
  conflict: (error: unknown) => EnvdataError = raceConflict,
): Promise<Location[]> {
  const rows = inputs.map(locationRowOf);
  const write = async (trx: Kysely<Database>): Promise<Location[]> => {
    const out: Location[] = [];
    for (let i = 0; i < rows.length; i += INSERT_BATCH) {
      const inserted = await trx
        .insertInto('location')
        .values(rows.slice(i, i + INSERT_BATCH))
        .returningAll()
        .execute();
      // Identities are drawn in VALUES order; RETURNING's order is not promised, so sort.
      inserted.sort((a, b) => a.location_id - b.location_id);
      out.push(...inserted.map(toLocation));
    }
    const aliases = out.flatMap((location, index) => {
      const alias = locationAliasOf(location.name, inputs[index]!.alias);
      return alias === undefined
        ? []
        : [{ alias_key: locationNameKey(alias), alias, location_id: location.locationId }];
    });
    for (let i = 0; i < aliases.length; i += INSERT_BATCH) {
      await trx
        .insertInto('location_alias')
        .values(aliases.slice(i, i + INSERT_BATCH))
        .execute();
    }
    return out;
  };
  try {
    return db.isTransaction ? await write(db) : await db.transaction().execute(write);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(error);
    throw error;
  }
}

function raceConflict(error: unknown): EnvdataError {
  return new EnvdataError(
    'CONFLICT',
    `another location with one of these names, aliases or points was registered meanwhile (${(error as { detail?: string }).detail ?? 'unique violation'}): nothing was written; run the command again`,
    { cause: error },
  );
}

/**
 * The row of a new location: rounded point, trimmed NFC name and its key, zone and pollen region computed from
 * the point alone (never from the country, which an operator may have mistyped). A name that
 * `locationTextProblem` refuses is a `USAGE` error here too, whatever path it came by.
 */
function locationRowOf(input: NewLocation): Insertable<LocationTable> {
  const lat = roundCoordinate(input.lat);
  const lng = roundCoordinate(input.lng);
  const countryCode = input.countryCode?.toUpperCase() ?? null;
  const name = input.name.normalize('NFC').trim();
  const problem = locationTextMessage('the name', 'name', name);
  if (problem !== undefined) throw new EnvdataError('USAGE', problem);
  return {
    name,
    name_key: locationNameKey(name),
    lat,
    lng,
    country_code: countryCode,
    timezone: timezoneOf(lat, lng),
    pollen_region: pollenRegionOf(lat, lng),
    place: input.place ?? null,
    registered_by: input.registeredBy,
    ingest_by_place: input.ingestByPlace ?? false,
  };
}

export function toLocation(row: Selectable<LocationTable>): Location {
  return {
    locationId: row.location_id,
    name: row.name,
    lat: row.lat,
    lng: row.lng,
    countryCode: row.country_code,
    timezone: row.timezone,
    pollenRegion: row.pollen_region,
    place: row.place,
    registeredBy: row.registered_by,
    ingestByPlace: row.ingest_by_place,
    retiredAt: row.retired_at,
  };
}
