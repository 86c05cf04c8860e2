import { nearestPlace } from '../../geo/nearest-place.js';
import { pollenRegionOf } from '../../geo/pollen-region-of.js';
import { timezoneOf } from '../../geo/timezone-of.js';
import { POLLEN_TYPES, type PollenRegion, type PollenType } from '../../types.js';
import { BoundedCache } from './bounded-cache.js';
import { hash3, unit3 } from './deterministic-hash.js';
import {
  POLLEN_SPECIES_BY_REGION,
  regionHasSpeciesData,
  TYPE_PEAK_DAY,
} from './pollen-species-table.js';
import { siteKeyOf, type SiteKey } from './site-key.js';

/** One species as it behaves at one site: its season and strength there. */
export interface SiteSpecies {
  readonly name: string;
  readonly type: PollenType;
  /** Position of `type` in `POLLEN_TYPES`. */
  readonly typeIndex: number;
  readonly peakDay: number;
  readonly widthDays: number;
  /** Grains/m³ at the peak of the season on an average day. */
  readonly amplitude: number;
  readonly salt: number;
  /** `"Name":`, the species' JSON key, ready for the renderer. */
  readonly jsonKey: string;
  /** `jsonKey` with each `/` escaped as `\\/`, as bodies re-encoded by PHP write it. */
  readonly jsonKeyEscaped: string;
}

/** Everything the pollen generator needs about one location, computed once per location. */
export interface PollenSite extends SiteKey {
  readonly region: PollenRegion;
  /** False for South America & Oceania (on request) and for open sea far from any place. */
  readonly covered: boolean;
  readonly timezone: string;
  /** `timezone` as a JSON string literal. */
  readonly timezoneJson: string;
  /** Whether records carry `Species` (regions of the table with species data). */
  readonly withSpecies: boolean;
  /** Ordered by type (tree, grass, weed), then by name, as the service lists them. */
  readonly species: readonly SiteSpecies[];
}

/** Land farther than this from any gazetteer place is open sea: no pollen data. */
const COVERAGE_KM = 300;

const cache = new BoundedCache<string, PollenSite>(10_000);

/** The `PollenSite` of a coordinate pair (rounded to 4 decimals), cached per location. */
export function pollenSiteOf(lat: number, lng: number): PollenSite {
  const key = siteKeyOf(lat, lng);
  return cache.get(key.id, () => buildPollenSite(key));
}

function buildPollenSite(key: SiteKey): PollenSite {
  const near = nearestPlace(key.lat, key.lng, COVERAGE_KM);
  const region = pollenRegionOf(key.lat, key.lng);
  const covered = near !== undefined && region !== 'south_america_oceania';
  const absLat = Math.abs(key.lat);
  // Seasons come later toward the poles; the tropics have long, flat seasons.
  const latitudeShift = Math.max(-30, Math.min(30, (absLat - 45) * 1.5));
  const tropical = Math.max(0, Math.min(1, (30 - absLat) / 15));
  const hemisphereShift = key.lat < 0 ? 182.6 : 0;
  const species = POLLEN_SPECIES_BY_REGION[region]
    .map((profile, i): SiteSpecies => {
      const salt = hash3(key.seed, i, 0x5bec1e5);
      return {
        name: profile.name,
        type: profile.type,
        typeIndex: POLLEN_TYPES.indexOf(profile.type),
        peakDay: TYPE_PEAK_DAY[profile.type] + profile.offsetDays + latitudeShift + hemisphereShift,
        widthDays: profile.widthDays * (1 + 1.5 * tropical),
        amplitude: profile.peak * (1 - 0.5 * tropical) * (0.5 + unit3(key.seed, i, 0xa3b1)),
        salt,
        jsonKey: `${JSON.stringify(profile.name)}:`,
        jsonKeyEscaped: `${JSON.stringify(profile.name).replaceAll('/', '\\/')}:`,
      };
    })
    .sort((a, b) => a.typeIndex - b.typeIndex || (a.name < b.name ? -1 : 1));
  const timezone = timezoneOf(key.lat, key.lng);
  return {
    ...key,
    region,
    covered,
    timezone,
    timezoneJson: JSON.stringify(timezone),
    withSpecies: regionHasSpeciesData(region),
    species,
  };
}
