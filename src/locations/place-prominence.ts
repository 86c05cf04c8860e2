import { distance } from 'geokdbush';
import { loadGazetteer } from '../geo/load-gazetteer.js';
import { normalizePlaceName } from '../geo/normalize-place-name.js';
import type { GeocodeMatch } from '../service/models.js';
import { matchName } from './match-name.js';

/** How far a gazetteer place may lie from a geocoding match and still be the same place. */
const SAME_PLACE_KM = 30;

/**
 * How prominent a geocoding match is: the population of the same-named place of the same country
 * within 30 km in the local gazetteer (GeoNames places of ≥ 1,000 inhabitants), `0` when the
 * gazetteer does not know it. The service ranks its matches but sends no score, so this is what
 * tells "Berlin" (one capital and some villages) from "Valencia" (two cities of a million).
 */
export function prominenceOf(match: GeocodeMatch): number {
  const name = matchName(match);
  if (name === undefined) return 0;
  const gazetteer = loadGazetteer();
  const country = match.countryCode?.toUpperCase();
  // byName lists are most populous first: the first place that fits is the best estimate.
  for (const id of gazetteer.byName.get(normalizePlaceName(name)) ?? []) {
    const place = gazetteer.places[id];
    if (place === undefined || (country !== undefined && place.countryCode !== country)) continue;
    if (distance(match.lng, match.lat, place.lng, place.lat) <= SAME_PLACE_KM) {
      return place.population;
    }
  }
  return 0;
}
