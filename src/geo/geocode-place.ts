import type { GeoPlace } from './geo-place.js';
import { loadGazetteer, type Gazetteer } from './load-gazetteer.js';
import { normalizePlaceName } from './normalize-place-name.js';

export interface GeocodePlaceOptions {
  /** Most matches returned. Default 5. */
  readonly limit?: number;
}

/** Country names people write that differ from the English display name. */
const COUNTRY_ALIASES: Readonly<Record<string, string>> = {
  usa: 'US',
  'united states of america': 'US',
  america: 'US',
  uk: 'GB',
  britain: 'GB',
  'great britain': 'GB',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  holland: 'NL',
};

/** How many prefix candidates are looked at when no name matches exactly. */
const PREFIX_SCAN_LIMIT = 5_000;

/**
 * Finds the places a free-text query names, best first: exact name matches before names that
 * merely start with the query, then the most populous. Names compare without case and accents,
 * and a city's other names count as its own (`ALTERNATE_PLACE_NAMES`): "München" is Munich,
 * Germany (1.26 M), not Münchenstein, Switzerland, whose name merely starts with it. Text after commas narrows the search to
 * a country (code or name) or a state: `"Paris, US"`, `"Springfield, Illinois"`, `"Berlin, DE"`.
 * Without commas, trailing words are tried as such a qualifier: `"Berlin Germany"`.
 *
 * Loads the gazetteer on first use (`loadGazetteer`).
 *
 * @example geocodePlace('Berlin')[0] // { name: 'Berlin', countryCode: 'DE', state: 'Berlin', … }
 */
export function geocodePlace(query: string, options: GeocodePlaceOptions = {}): GeoPlace[] {
  const limit = options.limit ?? 5;
  const parts = query
    .split(',')
    .map(normalizePlaceName)
    .filter((part) => part !== '');
  const [name, ...qualifiers] = parts;
  if (name === undefined || limit < 1) return [];
  const gazetteer = loadGazetteer();

  const exact = filterByQualifiers(gazetteer, gazetteer.byName.get(name) ?? [], qualifiers);
  if (exact.length > 0) return toPlaces(gazetteer, exact, limit);

  if (qualifiers.length === 0) {
    const words = name.split(' ');
    for (let k = words.length - 1; k >= 1; k--) {
      const head = words.slice(0, k).join(' ');
      const tail = words.slice(k).join(' ');
      const split = filterByQualifiers(gazetteer, gazetteer.byName.get(head) ?? [], [tail]);
      if (split.length > 0) return toPlaces(gazetteer, split, limit);
    }
  }

  const prefixed = filterByQualifiers(gazetteer, prefixMatches(gazetteer, name), qualifiers);
  prefixed.sort((a, b) => populationOf(gazetteer, b) - populationOf(gazetteer, a));
  return toPlaces(gazetteer, prefixed, limit);
}

function prefixMatches(gazetteer: Gazetteer, prefix: string): number[] {
  const names = gazetteer.sortedNames;
  let low = 0;
  let high = names.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((names[mid] ?? '') < prefix) low = mid + 1;
    else high = mid;
  }
  const found: number[] = [];
  for (let i = low; i < names.length && i < low + PREFIX_SCAN_LIMIT; i++) {
    const candidate = names[i];
    if (candidate === undefined || !candidate.startsWith(prefix)) break;
    found.push(...(gazetteer.byName.get(candidate) ?? []));
  }
  return found;
}

function filterByQualifiers(
  gazetteer: Gazetteer,
  ids: readonly number[],
  qualifiers: readonly string[],
): number[] {
  if (qualifiers.length === 0) return [...ids];
  return ids.filter((id) => {
    const place = gazetteer.places[id];
    return place !== undefined && qualifiers.every((q) => qualifierMatches(place, q));
  });
}

function qualifierMatches(place: GeoPlace, qualifier: string): boolean {
  const code = place.countryCode.toLowerCase();
  if (qualifier === code || COUNTRY_ALIASES[qualifier] === place.countryCode) return true;
  if (qualifier === normalizePlaceName(place.countryName)) return true;
  if (place.state !== '') {
    const state = normalizePlaceName(place.state);
    if (qualifier === state || state.startsWith(`${qualifier} `)) return true;
  }
  return qualifier === place.admin1Code.toLowerCase() && /[a-z]/.test(qualifier);
}

function populationOf(gazetteer: Gazetteer, id: number): number {
  return gazetteer.places[id]?.population ?? 0;
}

function toPlaces(gazetteer: Gazetteer, ids: readonly number[], limit: number): GeoPlace[] {
  const out: GeoPlace[] = [];
  for (const id of ids) {
    const place = gazetteer.places[id];
    if (place !== undefined) out.push(place);
    if (out.length >= limit) break;
  }
  return out;
}
