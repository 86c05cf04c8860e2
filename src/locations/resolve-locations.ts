import type { Kysely } from 'kysely';
import { didYouMean } from '../errors/did-you-mean.js';
import { EnvdataError } from '../errors/envdata-error.js';
import type { Database } from '../warehouse/schema.js';
import { toLocation } from './insert-location.js';
import type { Location } from './location.js';
import { locationNameKey } from './location-name-key.js';
import { parseLocationReference, type LocationReference } from './parse-location-reference.js';

export { LOCATION_REFERENCE_HELP } from './location-reference-help.js';

/**
 * Locations by reference (`parseLocationReference`: `id:12`, `name:Berlin`, `Berlin`, `12`; a
 * name matches a location's name or alias as people read them, `locationNameKey`); no
 * references means every active location (retired ones, see `retireLocations`, are left out of
 * new backfills and syncs). A location referenced explicitly is returned even when retired, with
 * its `retiredAt`, so the caller decides (a rebuild of its history is legitimate). Each location
 * comes once, in id order.
 *
 * A bare number that is the id of one location and the name of another is a `USAGE` error
 * naming both (say `id:N` or `name:N`); unknown references are one `NOT_FOUND` naming all of
 * them, each with the registered name closest to it when one is close (`Berln`: did you mean
 * `Berlin`?). Either way nothing is returned, so nothing is done to the others.
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
  const references = refs.map(parseLocationReference);
  const ids = references.flatMap((r) => (r.kind !== 'name' && r.id !== undefined ? [r.id] : []));
  const names = references.flatMap((r) => (r.kind !== 'id' ? [locationNameKey(r.name)] : []));
  const aliases = names.length
    ? await db.selectFrom('location_alias').selectAll().where('alias_key', 'in', names).execute()
    : [];
  const rows = await db
    .selectFrom('location')
    .selectAll()
    .where((eb) =>
      eb.or([
        ...(ids.length ? [eb('location_id', 'in', ids)] : []),
        ...(names.length ? [eb('name_key', 'in', names)] : []),
        ...(aliases.length
          ? [
              eb(
                'location_id',
                'in',
                aliases.map((a) => a.location_id),
              ),
            ]
          : []),
      ]),
    )
    .orderBy('location_id')
    .execute();
  const candidates: Candidate[] = rows.map((row) => ({
    location: toLocation(row),
    keys: [
      row.name_key,
      ...aliases.filter((a) => a.location_id === row.location_id).map((a) => a.alias_key),
    ],
  }));

  const found = new Map<number, Location>();
  const missing: string[] = [];
  const ambiguous: string[] = [];
  for (const reference of references) {
    const { byId, byName } = lookUp(candidates, reference);
    if (byId !== undefined && byName !== undefined && byId !== byName) {
      ambiguous.push(
        `"${reference.text}" is the id of location ${byId.locationId} "${byId.name}" and the name of ` +
          `location ${byName.locationId}: say id:${reference.text.trim()} or name:${reference.text.trim()}`,
      );
      continue;
    }
    const location = byId ?? byName;
    if (location === undefined) missing.push(reference.text);
    else found.set(location.locationId, location);
  }
  if (ambiguous.length > 0) {
    throw new EnvdataError(
      'USAGE',
      `ambiguous location(s), nothing was done: ${ambiguous.join('; ')}`,
    );
  }
  if (missing.length > 0) {
    // A typo (`Berln`) is told the registered name it is closest to, if one is close.
    const known = await db.selectFrom('location').select('name').execute();
    const names = known.map((row) => row.name);
    const told = missing.map((m) => `"${m}"${didYouMean(m.trim(), names)}`);
    throw new EnvdataError(
      'NOT_FOUND',
      `unknown location(s): ${told.join('; ')} (registered ones: \`envdata locations list\`)`,
    );
  }
  return [...found.values()].sort((a, b) => a.locationId - b.locationId);
}

/** A location found by id, name or alias, with the keys (`locationNameKey`) it answers to. */
interface Candidate {
  readonly location: Location;
  readonly keys: readonly string[];
}

function lookUp(
  candidates: readonly Candidate[],
  reference: LocationReference,
): { byId: Location | undefined; byName: Location | undefined } {
  const id = reference.kind === 'name' ? undefined : reference.id;
  const name = reference.kind === 'id' ? undefined : locationNameKey(reference.name);
  return {
    byId:
      id === undefined ? undefined : candidates.find((c) => c.location.locationId === id)?.location,
    byName:
      name === undefined ? undefined : candidates.find((c) => c.keys.includes(name))?.location,
  };
}
