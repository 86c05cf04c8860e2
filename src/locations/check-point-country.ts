import { countryNameOf } from '../geo/country-name-of.js';
import { countryOfPoint } from '../geo/country-of-point.js';
import type { GeoPlaceNearby } from '../geo/geo-place.js';

/** Whether a country given for a point fits the point. */
export type PointCountryVerdict =
  /** The point lies in that country. */
  | { readonly kind: 'ok' }
  /** envdata cannot tell (open sea, a border within a few km): keep the country, say so. */
  | { readonly kind: 'warn'; readonly message: string }
  /** The point clearly lies in another country (`pointCountry`). */
  | { readonly kind: 'refuse'; readonly message: string; readonly pointCountry: string };

/**
 * Checks a country code given with coordinates (`--country`, a `country` column) against the
 * country the local gazetteer puts the point in (`countryOfPoint`). A clear mismatch is refused,
 * naming the point's country: a wrong code, or latitude and longitude swapped. Where the
 * gazetteer cannot tell (no populated place within 150 km, or places of the given country almost
 * as near as the nearest place), the code is kept with a warning.
 *
 * @example checkPointCountry(50.0755, 14.4378, 'US').kind // 'refuse': Prague is in Czechia (CZ)
 */
export function checkPointCountry(lat: number, lng: number, country: string): PointCountryVerdict {
  const point = `${lat}, ${lng}`;
  const given = `${countryNameOf(country)} (${country})`;
  const found = countryOfPoint(lat, lng);
  if (found.kind === 'unknown') {
    return {
      kind: 'warn',
      message:
        `no populated place lies within 150 km of ${point} (open sea, desert or ice), so envdata ` +
        `cannot check that it is in ${given}: recorded as given`,
    };
  }
  const { nearest, alsoNear } = found;
  if (nearest.countryCode === country) return { kind: 'ok' };
  const near = alsoNear.find((p) => p.countryCode === country);
  const mostLikely = `${countryNameOf(nearest.countryCode)} (${nearest.countryCode})`;
  if (near !== undefined) {
    return {
      kind: 'warn',
      message:
        `${point} lies near the border of ${mostLikely} and ${given} (nearest places ` +
        `${describe(nearest)} and ${describe(near)}): recorded ${country} as given`,
    };
  }
  return {
    kind: 'refuse',
    pointCountry: nearest.countryCode,
    message:
      `the point ${point} is in ${mostLikely}, not ${given} (its nearest place is ` +
      `${describe(nearest)}): check the coordinates (latitude first), give country ` +
      `${nearest.countryCode}, or leave the country out to take it from the point`,
  };
}

function describe(place: GeoPlaceNearby): string {
  return `${place.name}, ${place.countryCode}, ${place.distanceKm.toFixed(1)} km away`;
}
