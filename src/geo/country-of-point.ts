import type { GeoPlaceNearby } from './geo-place.js';
import { nearestPlace } from './nearest-place.js';

/** Farther than this from every populated place, a point's country is not guessed. */
const SEARCH_KM = 150;

/**
 * Places of other countries this much farther away than the nearest place (or half as far
 * again, when that is more) make the point a border case.
 */
const BORDER_MARGIN_KM = 25;

/** What the local gazetteer says about the country a point lies in. */
export type CountryOfPoint =
  /** No populated place within 150 km: open sea, desert, ice. */
  | { readonly kind: 'unknown' }
  | {
      readonly kind: 'known';
      /** The nearest populated place: its country is the point's most likely country. */
      readonly nearest: GeoPlaceNearby;
      /**
       * The nearest place of each other country almost as near (border areas: Basel, Strasbourg,
       * Detroit), nearest first; empty when the country is clear.
       */
      readonly alsoNear: readonly GeoPlaceNearby[];
    };

/**
 * The country a point lies in, by the nearest places of the local gazetteer (GeoNames places of
 * at least 1,000 inhabitants; no borders are stored). Good enough to catch a wrong country code
 * or swapped coordinates; near a border it names every country that may be meant.
 *
 * @example countryOfPoint(50.0755, 14.4378) // { kind: 'known', nearest: Prague (CZ), alsoNear: [] }
 */
export function countryOfPoint(lat: number, lng: number): CountryOfPoint {
  const nearest = nearestPlace(lat, lng, SEARCH_KM);
  if (nearest === undefined) return { kind: 'unknown' };
  const reach = nearest.distanceKm + Math.max(BORDER_MARGIN_KM, nearest.distanceKm / 2);
  const seen = new Set([nearest.countryCode]);
  const alsoNear: GeoPlaceNearby[] = [];
  for (;;) {
    const other = nearestPlace(lat, lng, reach, (country) => !seen.has(country));
    if (other === undefined) break;
    alsoNear.push(other);
    seen.add(other.countryCode);
  }
  return { kind: 'known', nearest, alsoNear };
}
