import type { Insertable, Kysely, Selectable } from 'kysely';
import { EnvdataError } from '../errors/envdata-error.js';
import { isUniqueViolation } from '../errors/pg-errors.js';
import { pollenRegionOf } from '../geo/pollen-region-of.js';
import { timezoneOf } from '../geo/timezone-of.js';
import type { Database, LocationTable } from '../warehouse/schema.js';
import type { Location, NewLocation } from './location.js';
import { locationTextMessage } from './location-text-problem.js';

/** Rows per INSERT statement of `insertLocations` (10 parameters a row, far below pg's 65,535). */
const INSERT_BATCH = 500;

/** Coordinates are kept to 4 decimals (about 11 m), as the service's clients send them. */
export function roundCoordinate(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}

/**
 * Registers a location: time zone computed locally from the coordinates, pollen region from the
 * interface's region table. A duplicate name or point is a `CONFLICT` and writes nothing.
 */
export async function insertLocation(db: Kysely<Database>, input: NewLocation): Promise<Location> {
  const row = locationRowOf(input);
  try {
    return toLocation(
      await db.insertInto('location').values(row).returningAll().executeTakeFirstOrThrow(),
    );
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new EnvdataError(
        'CONFLICT',
        `a location named "${row.name}" or at ${row.lat}, ${row.lng} is already registered: see \`envdata locations list\``,
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * Registers many locations with a few multi-row INSERTs, in input order. Pass a transaction to
 * make it all or nothing; any duplicate name or point is a `CONFLICT` (the caller is expected to
 * have checked, so this is the race with another writer).
 */
export async function insertLocations(
  db: Kysely<Database>,
  inputs: readonly NewLocation[],
): Promise<Location[]> {
  const out: Location[] = [];
  for (let i = 0; i < inputs.length; i += INSERT_BATCH) {
    const rows = inputs.slice(i, i + INSERT_BATCH).map(locationRowOf);
    try {
      const inserted = await db.insertInto('location').values(rows).returningAll().execute();
      // Identities are drawn in VALUES order; RETURNING's order is not promised, so sort.
      inserted.sort((a, b) => a.location_id - b.location_id);
      out.push(...inserted.map(toLocation));
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new EnvdataError(
          'CONFLICT',
          `another location with one of these names or points was registered meanwhile (${(error as { detail?: string }).detail ?? 'unique violation'}): nothing was written; run the command again`,
          { cause: error },
        );
      }
      throw error;
    }
  }
  return out;
}

/**
 * The row of a new location: rounded point, trimmed name, zone and pollen region computed from
 * the point alone (never from the country, which an operator may have mistyped). A name that
 * `locationTextProblem` refuses is a `USAGE` error here too, whatever path it came by.
 */
function locationRowOf(input: NewLocation): Insertable<LocationTable> {
  const lat = roundCoordinate(input.lat);
  const lng = roundCoordinate(input.lng);
  const countryCode = input.countryCode?.toUpperCase() ?? null;
  const name = input.name.trim();
  const problem = locationTextMessage('the name', 'name', name);
  if (problem !== undefined) throw new EnvdataError('USAGE', problem);
  return {
    name,
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
