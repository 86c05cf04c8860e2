import type { Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import { toLocation } from './insert-location.js';
import type { Location } from './location.js';

/** Every registered location, retired ones included (with their `retiredAt`), in id order. */
export async function listLocations(db: Kysely<Database>): Promise<Location[]> {
  const rows = await db.selectFrom('location').selectAll().orderBy('location_id').execute();
  return rows.map(toLocation);
}
