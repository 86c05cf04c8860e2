import type { Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import { toLocation } from './insert-location.js';
import type { LocationWithAliases } from './location.js';
import { locationNameKey } from './location-name-key.js';

/**
 * Every registered location, retired ones included (with their `retiredAt`), in id order, each
 * with its aliases, sorted.
 */
export async function listLocations(db: Kysely<Database>): Promise<LocationWithAliases[]> {
  const rows = await db.selectFrom('location').selectAll().orderBy('location_id').execute();
  const aliases = await db.selectFrom('location_alias').select(['location_id', 'alias']).execute();
  return rows.map((row) => ({
    ...toLocation(row),
    answersToName: row.name_key === locationNameKey(row.name),
    aliases: aliases
      .filter((a) => a.location_id === row.location_id)
      .map((a) => a.alias)
      .sort(),
  }));
}
