import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import { roundCoordinate, toLocation } from './insert-location.js';
import type { Location } from './location.js';

/** A location about to be registered, as far as uniqueness goes. */
export interface LocationKey {
  readonly name: string;
  readonly lat: number;
  readonly lng: number;
}

/** A registered location that a new one would collide with, and on what. */
export interface LocationConflict {
  /** Position of the new location in the input. */
  readonly index: number;
  readonly on: 'name' | 'point';
  readonly existing: Location;
}

/**
 * The registered locations (retired ones included: they keep their name and point) that would
 * collide with new ones: same name, case-insensitively, or same point at 4 decimals, the rules
 * of the unique indexes. One query, however many keys.
 */
export async function findLocationConflicts(
  db: Kysely<Database>,
  keys: readonly LocationKey[],
): Promise<LocationConflict[]> {
  if (keys.length === 0) return [];
  const names = keys.map((k) => k.name.trim().toLowerCase());
  const lats = keys.map((k) => roundCoordinate(k.lat));
  const lngs = keys.map((k) => roundCoordinate(k.lng));
  const rows = await db
    .selectFrom('location')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb(sql<string>`lower(name)`, '=', sql<string>`any(${names}::text[])`),
        sql<boolean>`(round(lat::numeric, 4), round(lng::numeric, 4)) in (
          select * from unnest(${lats}::numeric[], ${lngs}::numeric[]))`,
      ]),
    )
    .orderBy('location_id')
    .execute();
  const existing = rows.map(toLocation);
  const conflicts: LocationConflict[] = [];
  keys.forEach((key, index) => {
    const name = names[index];
    const byName = existing.find((l) => l.name.toLowerCase() === name);
    if (byName) conflicts.push({ index, on: 'name', existing: byName });
    const byPoint = existing.find(
      (l) =>
        roundCoordinate(l.lat) === roundCoordinate(key.lat) &&
        roundCoordinate(l.lng) === roundCoordinate(key.lng),
    );
    if (byPoint && byPoint !== byName) conflicts.push({ index, on: 'point', existing: byPoint });
  });
  return conflicts;
}

/** One line for a conflict: what is taken, by which location, and how to reuse a retired one. */
export function describeConflict(key: LocationKey, conflict: LocationConflict): string {
  const { existing } = conflict;
  const taken =
    conflict.on === 'name'
      ? `the name "${key.name.trim()}" is already registered (location ${existing.locationId} at ${existing.lat}, ${existing.lng})`
      : `the point ${roundCoordinate(key.lat)}, ${roundCoordinate(key.lng)} is already registered (location ${existing.locationId} "${existing.name}")`;
  const retired =
    existing.retiredAt === null
      ? ''
      : ` (retired: \`envdata locations restore ${existing.locationId}\` makes it active again)`;
  return `${taken}${retired}`;
}
