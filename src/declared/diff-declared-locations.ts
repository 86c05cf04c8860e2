import { roundCoordinate } from '../locations/insert-location.js';
import type { Location, LocationWithAliases } from '../locations/location.js';
import { locationNameKey } from '../locations/location-name-key.js';
import type { WantedLocation } from './wanted-location.js';

/** What applying a file does to the locations, and what it refuses to do. */
export interface LocationChanges {
  readonly add: readonly WantedLocation[];
  /** Registered, active, and in the file no more: retired, their data kept. */
  readonly retire: readonly Location[];
  /** Retired, and in the file again. */
  readonly restore: readonly Location[];
  /** Registered, active and declared as they are. */
  readonly keep: readonly Location[];
  /** Each declared location and the registered one it is, by location id. */
  readonly declaredAs: ReadonlyMap<number, WantedLocation>;
  /** Changes envdata never makes (a moved point): `envdata.yaml:12:5: …`, with what to do. */
  readonly refused: readonly string[];
}

const pointOf = (l: { lat: number; lng: number }) =>
  `${roundCoordinate(l.lat)}, ${roundCoordinate(l.lng)}`;

/**
 * Compares the declared locations with the registered ones (retired included), by name as it
 * reads (`locationNameKey`). A declared name registered at another point is refused: a
 * location's coordinates never change under its data. So is a new name at a point registered
 * under another name.
 */
export function diffDeclaredLocations(
  wanted: readonly WantedLocation[],
  registered: readonly LocationWithAliases[],
): LocationChanges {
  const byName = new Map(registered.map((l) => [locationNameKey(l.name), l]));
  const byPoint = new Map(registered.map((l) => [pointOf(l), l]));
  const add: WantedLocation[] = [];
  const restore: Location[] = [];
  const keep: Location[] = [];
  const refused: string[] = [];
  const declaredAs = new Map<number, WantedLocation>();
  for (const w of wanted) {
    const name = w.input.name.normalize('NFC').trim();
    const same = byName.get(locationNameKey(name));
    if (same !== undefined) {
      declaredAs.set(same.locationId, w);
      if (pointOf(same) !== pointOf(w.input)) {
        refused.push(
          `${w.ref}: "${same.name}" is registered at ${pointOf(same)} (location ${same.locationId}), not ${pointOf(w.input)}: ` +
            `a location's coordinates never change under its data. To replace it, declare the new point under another name ` +
            `(such as "${same.name} 2") and take "${same.name}" out of the file: it is retired, its data kept`,
        );
      } else if (same.retiredAt !== null) restore.push(same);
      else keep.push(same);
      continue;
    }
    const atPoint = byPoint.get(pointOf(w.input));
    if (atPoint !== undefined) {
      refused.push(
        `${w.ref}: the point ${pointOf(w.input)} is registered as "${atPoint.name}" (location ${atPoint.locationId}): declare it under that name`,
      );
      continue;
    }
    add.push(w);
  }
  const retire = registered.filter((l) => l.retiredAt === null && !declaredAs.has(l.locationId));
  return { add, retire, restore, keep, declaredAs, refused };
}
