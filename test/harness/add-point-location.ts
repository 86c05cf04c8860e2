import type { Kysely } from 'kysely';
import { insertLocation } from '../../src/locations/insert-location.js';
import type { Location, NewLocation } from '../../src/locations/location.js';
import type { Database } from '../../src/warehouse/schema.js';

/** Registers a location by its coordinates, as `envdata locations add --lat --lng` would. */
export function addPointLocation(
  db: Kysely<Database>,
  point: Omit<NewLocation, 'registeredBy'>,
): Promise<Location> {
  return insertLocation(db, { ...point, registeredBy: 'coordinates' });
}
