import type { Kysely } from 'kysely';
import { EnvdataError } from '../errors/envdata-error.js';
import type { Database } from '../warehouse/schema.js';
import { toLocation } from './insert-location.js';
import type { Location } from './location.js';

/**
 * Locations by name (case-insensitive) or id; no references means every active location (retired
 * ones, see `retireLocations`, are left out of new backfills and syncs). A location named
 * explicitly is returned even when retired, with its `retiredAt`, so the caller decides (a
 * rebuild of its history is legitimate). An unknown reference is a `NOT_FOUND` naming all of them.
 */
export async function resolveLocations(
  db: Kysely<Database>,
  refs: readonly string[],
): Promise<Location[]> {
  if (refs.length === 0) {
    const rows = await db
      .selectFrom('location')
      .selectAll()
      .where('retired_at', 'is', null)
      .orderBy('location_id')
      .execute();
    return rows.map(toLocation);
  }
  const ids = refs.filter((r) => /^\d+$/.test(r)).map(Number);
  const names = refs.filter((r) => !/^\d+$/.test(r)).map((r) => r.trim().toLowerCase());
  const rows = await db
    .selectFrom('location')
    .selectAll()
    .where((eb) =>
      eb.or([
        ...(ids.length ? [eb('location_id', 'in', ids)] : []),
        ...(names.length ? [eb(eb.fn('lower', ['name']), 'in', names)] : []),
      ]),
    )
    .orderBy('location_id')
    .execute();
  const found = rows.map(toLocation);
  const missing = refs.filter(
    (r) =>
      !found.some((l) =>
        /^\d+$/.test(r)
          ? l.locationId === Number(r)
          : l.name.toLowerCase() === r.trim().toLowerCase(),
      ),
  );
  if (missing.length > 0) {
    throw new EnvdataError(
      'NOT_FOUND',
      `unknown location(s): ${missing.map((m) => `"${m}"`).join(', ')} — see \`envdata locations list\``,
    );
  }
  return found;
}
