import { isCountryCode } from '../geo/is-country-code.js';
import type { GeocodeMatch } from '../service/models.js';
import { stripUnsafeCharacters } from './unsafe-characters.js';

/**
 * The name a geocoding match gives a location: its `city`, else the first part of its `label`
 * (`"Berlin, Germany"` → `"Berlin"`); `undefined` when the match carries neither. Control and
 * bidirectional formatting characters the service may send are removed
 * (`stripUnsafeCharacters`): the operator did not type them and cannot retype them.
 */
export function matchName(match: GeocodeMatch): string | undefined {
  const city = clean(match.city);
  if (city) return city;
  const head = matchLabel(match)?.split(',')[0]?.trim();
  return head ? head : undefined;
}

/** The match's full label (`"Valencia, Spain"`), cleaned like `matchName`; `undefined` if empty. */
export function matchLabel(match: GeocodeMatch): string | undefined {
  return clean(match.label) || undefined;
}

/** A match as a person reads it in a list: `Valencia, Spain [ES] (39.4699, -0.3763)`. */
export function describeMatch(match: GeocodeMatch): string {
  const label = matchLabel(match) ?? matchName(match) ?? 'unnamed place';
  const country = matchCountryCode(match);
  return `${label}${country ? ` [${country}]` : ''} (${round4(match.lat)}, ${round4(match.lng)})`;
}

function round4(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}

function clean(text: string | undefined): string {
  return text === undefined ? '' : stripUnsafeCharacters(text);
}

/**
 * An ISO 3166-1 alpha-2 code from a match, upper case; `null` when absent or not the code of a
 * country (`isCountryCode`).
 */
export function matchCountryCode(match: GeocodeMatch): string | null {
  const code = match.countryCode?.trim().toUpperCase();
  return code !== undefined && isCountryCode(code) ? code : null;
}
