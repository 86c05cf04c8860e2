import { countryNameOf } from '../geo/country-name-of.js';
import { countryOfPoint } from '../geo/country-of-point.js';

/** The country envdata records for a point given without one, and why not when it records none. */
export interface PointCountryCode {
  readonly countryCode: string | null;
  /** Why no country is recorded, for the operator; `undefined` when one is. */
  readonly warning?: string;
}

/**
 * The country of a point given without one, computed offline (`countryOfPoint`, the local
 * gazetteer): the nearest populated place's country when no other country is almost as near.
 * With no populated place within 150 km (open sea), none (`null`). Near a border, none either
 * rather than a guess, and `warning` says so and what to do.
 *
 * @example pointCountryCode(47.3769, 8.5417) // { countryCode: 'CH' }
 */
export function pointCountryCode(lat: number, lng: number): PointCountryCode {
  const found = countryOfPoint(lat, lng);
  // Open sea, desert or ice: no country is the truth, nothing to warn about.
  if (found.kind === 'unknown') return { countryCode: null };
  const { nearest, alsoNear } = found;
  if (alsoNear.length === 0) return { countryCode: nearest.countryCode };
  const countries = [nearest, ...alsoNear]
    .map((p) => `${countryNameOf(p.countryCode)} (${p.countryCode})`)
    .join(', ');
  return {
    countryCode: null,
    warning: `${lat}, ${lng} lies near the border of ${countries}, so no country is recorded: give one to record it`,
  };
}
