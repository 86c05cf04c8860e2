import type { GeocodeMatch } from '../service/models.js';

/**
 * The name a geocoding match gives a location: its `city`, else the first part of its `label`
 * (`"Berlin, Germany"` → `"Berlin"`); `undefined` when the match carries neither.
 */
export function matchName(match: GeocodeMatch): string | undefined {
  const city = match.city?.trim();
  if (city) return city;
  const head = match.label?.split(',')[0]?.trim();
  return head ? head : undefined;
}

/** A match as a person reads it in a list: `Valencia, Spain [ES] (39.4699, -0.3763)`. */
export function describeMatch(match: GeocodeMatch): string {
  const label = match.label?.trim() || matchName(match) || 'unnamed place';
  const country = match.countryCode ? ` [${match.countryCode.toUpperCase()}]` : '';
  return `${label}${country} (${round4(match.lat)}, ${round4(match.lng)})`;
}

function round4(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}

/** An ISO 3166-1 alpha-2 code from a match, upper case; `null` when absent or not two letters. */
export function matchCountryCode(match: GeocodeMatch): string | null {
  const code = match.countryCode?.trim();
  return code !== undefined && /^[A-Za-z]{2}$/.test(code) ? code.toUpperCase() : null;
}
