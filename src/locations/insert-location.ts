import type { Kysely, Selectable } from 'kysely';
import { EnvdataError } from '../errors/envdata-error.js';
import { pollenRegionOf } from '../geo/pollen-region-of.js';
import { timezoneOf } from '../geo/timezone-of.js';
import type { Database, LocationTable } from '../warehouse/schema.js';
import type { Location, NewLocation } from './location.js';

/** Coordinates are kept to 4 decimals (about 11 m), as the service's clients send them. */
export function roundCoordinate(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}

/**
 * Registers a location: time zone computed locally from the coordinates, pollen region from the
 * interface's region table. A duplicate name or point is a `CONFLICT` and writes nothing.
 */
export async function insertLocation(db: Kysely<Database>, input: NewLocation): Promise<Location> {
  const lat = roundCoordinate(input.lat);
  const lng = roundCoordinate(input.lng);
  const countryCode = input.countryCode?.toUpperCase() ?? null;
  try {
    const row = await db
      .insertInto('location')
      .values({
        name: input.name.trim(),
        lat,
        lng,
        country_code: countryCode,
        timezone: timezoneOf(lat, lng),
        pollen_region: pollenRegionOf(lat, lng, countryCode ?? undefined),
        place: input.place ?? null,
        registered_by: input.registeredBy,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toLocation(row);
  } catch (error) {
    if ((error as { code?: string }).code === '23505') {
      throw new EnvdataError(
        'CONFLICT',
        `a location named "${input.name}" or at ${lat}, ${lng} is already registered: see \`envdata locations list\``,
        { cause: error },
      );
    }
    throw error;
  }
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
  };
}
