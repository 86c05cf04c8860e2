import { around, distance } from 'geokdbush';
import type { GeoPlaceNearby } from './geo-place.js';
import { loadGazetteer } from './load-gazetteer.js';

/**
 * The nearest place by plain distance within `maxDistanceKm` (default 300 km), optionally only
 * among countries `predicate` accepts; `undefined` over open sea. Loads the gazetteer on first use.
 */
export function nearestPlace(
  lat: number,
  lng: number,
  maxDistanceKm = 300,
  predicate?: (countryCode: string) => boolean,
): GeoPlaceNearby | undefined {
  const gazetteer = loadGazetteer();
  const filter =
    predicate === undefined
      ? undefined
      : (id: number) => predicate(gazetteer.places[id]?.countryCode ?? '');
  const [id] = around(gazetteer.index, lng, lat, 1, maxDistanceKm, filter);
  const place = id === undefined ? undefined : gazetteer.places[id];
  if (place === undefined) return undefined;
  return { ...place, distanceKm: distance(lng, lat, place.lng, place.lat) };
}
