import { countries } from 'countries-list';
import type { PollenRegion } from '../types.js';
import { nearestPlace } from './nearest-place.js';

/** GeoNames admin1 codes of Australia's Northern Territory and Queensland. */
const AU_NT_QLD_ADMIN1 = new Set(['03', '04']);

/** How far from a point its country is looked for when no country code is given. */
const COUNTRY_SEARCH_KM = 500;

/**
 * The pollen region of the interface's region table a point belongs to.
 *
 * The region follows the coordinates only: the country is that of the nearest gazetteer place
 * (within 500 km; farther out at sea the point is `rest_of_world`), never a country code an
 * operator typed (a wrong `--country` must not move Prague to North America). Countries map to regions by
 * continent (`countries-list`): Europe (with Russia west of the Urals, 60° E), North America,
 * South America and Oceania (on request), the rest of the world. Australia splits into
 * Queensland + Northern Territory and the rest (with New Zealand), by the state of the nearest
 * Australian place, or by the state borders' rough lines when there is none.
 *
 * @example pollenRegionOf(-27.47, 153.03) // 'australia_qld_nt' (Brisbane)
 */
export function pollenRegionOf(lat: number, lng: number): PollenRegion {
  const code = nearestPlace(lat, lng, COUNTRY_SEARCH_KM)?.countryCode.toUpperCase();
  if (code === undefined) return 'rest_of_world';
  if (code === 'AU')
    return isInQueenslandOrNorthernTerritory(lat, lng) ? 'australia_qld_nt' : 'australia_nz_rest';
  if (code === 'NZ') return 'australia_nz_rest';
  if (code === 'RU') return lng < 60 ? 'europe' : 'rest_of_world';
  const continent = (countries as Record<string, { continent: string } | undefined>)[code]
    ?.continent;
  switch (continent) {
    case 'EU':
      return 'europe';
    case 'NA':
      return 'north_america';
    case 'SA':
    case 'OC':
      return 'south_america_oceania';
    default:
      return 'rest_of_world';
  }
}

function isInQueenslandOrNorthernTerritory(lat: number, lng: number): boolean {
  const place = nearestPlace(lat, lng, 200, (country) => country === 'AU');
  if (place !== undefined) return AU_NT_QLD_ADMIN1.has(place.admin1Code);
  // Northern Territory: 129° E to 138° E north of 26° S; Queensland: east of 138° E north of
  // 26° S and east of 141° E north of ~29° S.
  if (lat >= -26) return lng >= 129;
  return lng >= 141 && lat >= -29;
}
