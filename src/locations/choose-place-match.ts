import { distance } from 'geokdbush';
import { normalizePlaceName } from '../geo/normalize-place-name.js';
import type { GeocodeMatch } from '../service/models.js';
import { describeMatch, matchCountryCode, matchLabel, matchName } from './match-name.js';
import { prominenceOf } from './place-prominence.js';

/**
 * A rival is as prominent as this share of the best match or more. Paris (2.1 M) against Paris,
 * Texas (25 k) is no contest; Valencia, Venezuela (1.4 M) against Valencia, Spain (0.8 M) is.
 */
const RIVAL_SHARE = 0.25;

/** Matches closer than this are the same place named twice, not rivals. */
const DISTINCT_PLACE_KM = 25;

/** What a geocoding answer means for registering a place. */
export type PlaceChoice =
  /** One place stands out: register it. */
  | { readonly kind: 'match'; readonly match: GeocodeMatch }
  /** Nothing matched (`elsewhere` is empty), or nothing in the requested country. */
  | { readonly kind: 'none'; readonly elsewhere: readonly GeocodeMatch[] }
  /** Several distinct places of the same name, none clearly the one meant; best first. */
  | { readonly kind: 'ambiguous'; readonly candidates: readonly GeocodeMatch[] };

/**
 * Decides which of the service's matches (best first) a place query means.
 *
 * With `country`, only matches in that country count. The best remaining match is taken unless
 * the query is ambiguous: another match of the same name, a distinct place (over 25 km away),
 * is at least a quarter as prominent (`prominenceOf`: population in the local gazetteer). So
 * "Berlin" is Berlin, Germany, while "Valencia" or "Springfield" ask for a `--country` or a
 * more specific place ("Springfield, Illinois").
 */
export function choosePlaceMatch(
  matches: readonly GeocodeMatch[],
  country?: string | null,
): PlaceChoice {
  const wanted = country?.toUpperCase();
  const candidates =
    wanted === undefined ? matches : matches.filter((m) => matchCountryCode(m) === wanted);
  const [best, ...others] = candidates;
  if (best === undefined) return { kind: 'none', elsewhere: matches };
  const bestName = normalizePlaceName(matchName(best) ?? '');
  const bestProminence = prominenceOf(best);
  const rivals = others.filter((m) => {
    if (normalizePlaceName(matchName(m) ?? '') !== bestName) return false;
    if (distance(best.lng, best.lat, m.lng, m.lat) <= DISTINCT_PLACE_KM) return false;
    const prominence = prominenceOf(m);
    return prominence > 0 && prominence >= RIVAL_SHARE * bestProminence;
  });
  if (rivals.length > 0) return { kind: 'ambiguous', candidates: [best, ...rivals] };
  return { kind: 'match', match: best };
}

/**
 * The operator's message for a choice that is not a match: what the service found and how to
 * say which place is meant. `countryHint` says how to give one of the candidates' country codes:
 * `--country VE|ES` on the command line, a country column in an import file. Without `quote`,
 * the place text is not quoted (a declared file's place may come from a `${VAR}` or a `file:`
 * entry; the message's position says which).
 */
export function describePlaceProblem(
  place: string,
  country: string | null | undefined,
  choice: Exclude<PlaceChoice, { kind: 'match' }>,
  countryHint: (codes: readonly string[]) => string,
  quote = true,
): string {
  const quoted = quote ? `"${place}"` : 'the place';
  if (choice.kind === 'none') {
    if (choice.elsewhere.length === 0) {
      return `no place matches ${quoted}: check the spelling, or register it by coordinates (lat, lng and a name)`;
    }
    const specific = quote ? `("${place}, <state or country>")` : '(add its state or country)';
    return (
      `no place in ${country?.toUpperCase() ?? '?'} matches ${quoted}; the service found ` +
      `${choice.elsewhere.map(describeMatch).join('; ')}: check the country, or make the place ` +
      `more specific ${specific}`
    );
  }
  const codes = [...new Set(choice.candidates.map(matchCountryCode).filter((c) => c !== null))];
  const first = choice.candidates[0];
  const example = first === undefined ? undefined : matchLabel(first);
  const specific = `a more specific place${example ? ` (e.g. "${example}")` : ''}`;
  const how = codes.length > 1 ? `${countryHint(codes)} or ${specific}` : specific;
  return (
    `${quoted} is ambiguous: ${choice.candidates.map(describeMatch).join('; ')}. ` +
    `Say which one with ${how}`
  );
}
