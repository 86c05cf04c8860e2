import { around, distance } from 'geokdbush';
import type { GeoPlaceNearby } from './geo-place.js';
import { loadGazetteer } from './load-gazetteer.js';

export interface ReverseGeocodeOptions {
  /** Most places returned. Default 5. */
  readonly limit?: number;
  /** Search radius. Default 100 km; nothing farther is returned. */
  readonly maxDistanceKm?: number;
}

/** Places looked at before ranking; enough to find the city a point lies in. */
const CANDIDATES = 64;

/**
 * The places a point most likely belongs to, best first. A point lies "in" a place when it is
 * within the place's rough radius, which grows with the square root of its population, so the
 * centre of Paris answers Paris rather than a closer suburb's centroid. Empty over open sea.
 *
 * Loads the gazetteer on first use (`loadGazetteer`).
 *
 * @example reverseGeocode(48.8566, 2.3522)[0]?.name // 'Paris'
 */
export function reverseGeocode(
  lat: number,
  lng: number,
  options: ReverseGeocodeOptions = {},
): GeoPlaceNearby[] {
  const limit = options.limit ?? 5;
  const maxDistanceKm = options.maxDistanceKm ?? 100;
  const gazetteer = loadGazetteer();
  const ranked: { place: GeoPlaceNearby; score: number }[] = [];
  for (const id of around(gazetteer.index, lng, lat, CANDIDATES, maxDistanceKm)) {
    const place = gazetteer.places[id];
    if (place === undefined) continue;
    const distanceKm = distance(lng, lat, place.lng, place.lat);
    ranked.push({ place: { ...place, distanceKm }, score: distanceKm / placeRadiusKm(place) });
  }
  ranked.sort((a, b) => a.score - b.score);
  return ranked.slice(0, limit).map((r) => r.place);
}

/** A place's rough radius: 2 km for a village, ~18 km for a city of two million. */
function placeRadiusKm(place: { population: number }): number {
  return Math.max(2, 0.012 * Math.sqrt(place.population));
}
