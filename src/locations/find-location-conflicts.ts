import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import { roundCoordinate, toLocation } from './insert-location.js';
import type { Location } from './location.js';
import { locationAliasOf } from './location-alias-of.js';
import { locationNameKey } from './location-name-key.js';

/** A location about to be registered, as far as uniqueness goes. */
export interface LocationKey {
  readonly name: string;
  readonly lat: number;
  readonly lng: number;
  /** The place text it is registered by, kept as an alias (`locationAliasOf`). */
  readonly alias?: string | null | undefined;
}

/** A registered location that a new one would collide with, and on what. */
export interface LocationConflict {
  /** Position of the new location in the input. */
  readonly index: number;
  /** What of the new location is taken: its name, its alias (the place text), or its point. */
  readonly on: 'name' | 'alias' | 'point';
  readonly existing: Location;
  /**
   * For `name` and `alias`: the registered text that reads the same (`locationNameKey`), and
   * whether it is the existing location's name or one of its aliases.
   */
  readonly taken?: { readonly text: string; readonly as: 'name' | 'alias' };
}

/**
 * The registered locations (retired ones included: they keep their name, aliases and point)
 * that would collide with new ones: a name or alias that reads as a registered name or alias
 * (`locationNameKey`: Unicode form, invisible characters and case aside), or the same point at
 * 4 decimals, the rules the database enforces. Two queries, however many keys, each read
 * through the indexes, and matched to the keys through maps: linear in keys and conflicts.
 */
export async function findLocationConflicts(
  db: Kysely<Database>,
  keys: readonly LocationKey[],
): Promise<LocationConflict[]> {
  if (keys.length === 0) return [];
  const nameKeys = keys.map((k) => locationNameKey(k.name));
  const aliasKeys = keys.map((k) => {
    const alias = locationAliasOf(k.name, k.alias);
    return alias === undefined ? undefined : locationNameKey(alias);
  });
  const texts = [...nameKeys, ...aliasKeys.filter((k) => k !== undefined)];
  const lats = keys.map((k) => roundCoordinate(k.lat));
  const lngs = keys.map((k) => roundCoordinate(k.lng));
  const aliases = await db
    .selectFrom('location_alias')
    .selectAll()
    .where('alias_key', '=', sql<string>`any(${texts}::text[])`)
    .execute();
  // One branch per rule, each on its own index: a single OR of them is read row by row against
  // every key, minutes for 100,000 new locations beside as many registered.
  const rows = await db
    .selectFrom('location')
    .selectAll()
    .where('location_id', 'in', (eb) => {
      const byName = eb
        .selectFrom('location')
        .select('location_id')
        .where('name_key', '=', sql<string>`any(${texts}::text[])`);
      const byPoint = eb
        .selectFrom('location')
        .select('location_id')
        .where(
          sql<boolean>`(round(lat::numeric, 4), round(lng::numeric, 4)) in (
            select * from unnest(${lats}::numeric[], ${lngs}::numeric[]))`,
        );
      const ids = aliases.map((a) => a.location_id);
      return ids.length > 0
        ? byName.union(byPoint).union(
            eb
              .selectFrom('location')
              .select('location_id')
              .where('location_id', '=', sql<number>`any(${ids}::int[])`),
          )
        : byName.union(byPoint);
    })
    .orderBy('location_id')
    .execute();
  const existing = new Map(rows.map((r) => [r.location_id, toLocation(r)]));
  const byNameKey = new Map(rows.map((r) => [r.name_key, r]));
  const byAliasKey = new Map(aliases.map((a) => [a.alias_key, a]));
  const pointOf = (lat: number, lng: number) => `${roundCoordinate(lat)},${roundCoordinate(lng)}`;
  const byPoint = new Map([...existing.values()].map((l) => [pointOf(l.lat, l.lng), l]));
  const holderOf = (key: string): Pick<LocationConflict, 'existing' | 'taken'> | undefined => {
    const byName = byNameKey.get(key);
    if (byName)
      return {
        existing: existing.get(byName.location_id)!,
        taken: { text: byName.name, as: 'name' },
      };
    const byAlias = byAliasKey.get(key);
    const holder = byAlias && existing.get(byAlias.location_id);
    return holder && { existing: holder, taken: { text: byAlias.alias, as: 'alias' } };
  };
  const conflicts: LocationConflict[] = [];
  keys.forEach((key, index) => {
    const seen = new Set<Location>();
    for (const [on, text] of [
      ['name', nameKeys[index]],
      ['alias', aliasKeys[index]],
    ] as const) {
      const held = text === undefined ? undefined : holderOf(text);
      if (held === undefined || seen.has(held.existing)) continue;
      seen.add(held.existing);
      conflicts.push({ index, on, ...held });
    }
    const atPoint = byPoint.get(pointOf(key.lat, key.lng));
    if (atPoint && !seen.has(atPoint)) conflicts.push({ index, on: 'point', existing: atPoint });
  });
  return conflicts;
}

/** One line for a conflict: what is taken, by which location, and how to reuse a retired one. */
export function describeConflict(key: LocationKey, conflict: LocationConflict): string {
  const { existing, taken } = conflict;
  const where = `location ${existing.locationId} at ${existing.lat}, ${existing.lng}`;
  let text: string;
  if (conflict.on === 'point' || taken === undefined) {
    text = `the point ${roundCoordinate(key.lat)}, ${roundCoordinate(key.lng)} is already registered (location ${existing.locationId} "${existing.name}")`;
  } else {
    const ours =
      conflict.on === 'name'
        ? `the name "${key.name.normalize('NFC').trim()}"`
        : `the place "${locationAliasOf(key.name, key.alias) ?? ''}" (kept as another name of the new location)`;
    // Only case apart: the message the name check has always given.
    const same =
      conflict.on === 'name' &&
      taken.as === 'name' &&
      taken.text.toLowerCase() === key.name.normalize('NFC').trim().toLowerCase();
    text = same
      ? `${ours} is already registered (${where})`
      : taken.as === 'name'
        ? `${ours} reads as "${taken.text}", the name of ${where}`
        : `${ours} reads as "${taken.text}", the place ${where} ("${existing.name}") was registered by`;
  }
  const retired =
    existing.retiredAt === null
      ? ''
      : ` (retired: \`envdata locations restore ${existing.locationId}\` makes it active again)`;
  return `${text}${retired}`;
}
