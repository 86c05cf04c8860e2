import pLimit from 'p-limit';
import { roundCoordinate } from '../locations/insert-location.js';
import type { LocationWithAliases } from '../locations/location.js';
import { checkPointCountry } from '../locations/check-point-country.js';
import { describePlaceProblem } from '../locations/choose-place-match.js';
import { locatePlace } from '../locations/locate-place.js';
import { locationNameKey } from '../locations/location-name-key.js';
import { matchCountryCode, matchLabel, matchName } from '../locations/match-name.js';
import { pointCountryCode } from '../locations/point-country-code.js';
import type { ServiceClient } from '../service/service-client.js';
import type { DeclaredLocation } from './declared-file.js';
import type { WantedLocation } from './wanted-location.js';

/** Every declared location as a point to keep, or the problems that stop the plan. */
export interface ResolvedLocations {
  readonly wanted: readonly WantedLocation[];
  /** `envdata.yaml:12:5: …`, each saying what to write instead. */
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
  /** Calls made to the service: one per place neither registered nor answered before. */
  readonly geocodeCalls: number;
}

/**
 * Turns declared locations into points. A place already registered (its name, or its place text
 * as a name or alias, `locationNameKey`) is that location: no call. Any other place is geocoded
 * (4 calls at once, each distinct place and country once) and must be unambiguous; without a
 * `client` (no ENVDATA_API_KEY) it is a problem. A new point's country must contain it
 * (`checkPointCountry`); without one it gets the gazetteer's (`pointCountryCode`). A point
 * registered as declared is taken as it is.
 */
export async function resolveDeclaredLocations(
  declared: readonly DeclaredLocation[],
  registered: readonly LocationWithAliases[],
  client: (Pick<ServiceClient, 'geocode'> & { readonly calls?: number }) | undefined,
): Promise<ResolvedLocations> {
  const known = new Map<string, LocationWithAliases>();
  for (const l of registered) {
    for (const text of [l.name, ...l.aliases]) known.set(locationNameKey(text), l);
  }
  const problems: string[] = [];
  const warnings: string[] = [];
  const toGeocode = declared.filter(
    (d) => d.kind === 'place' && !known.has(locationNameKey(d.name ?? d.place)),
  );
  if (toGeocode.length > 0 && client === undefined) {
    problems.push(
      `${toGeocode.length} place(s) not registered yet need the service to geocode them (first: ${toGeocode[0]!.ref}): set ENVDATA_API_KEY`,
    );
  }
  const limit = pLimit(4);
  const keyOf = (d: DeclaredLocation) =>
    d.kind === 'place' ? `${d.place.toLowerCase()}\u0000${d.country ?? ''}` : '';
  const distinct = new Map(toGeocode.map((d) => [keyOf(d), d]));
  const choices =
    client === undefined
      ? new Map()
      : new Map(
          await Promise.all(
            [...distinct].map(([key, d]) =>
              limit(
                async () =>
                  [
                    key,
                    await locatePlace(client, (d as { place: string }).place, d.country),
                  ] as const,
              ),
            ),
          ),
        );
  const wanted: WantedLocation[] = [];
  for (const d of declared) {
    const base = { group: d.group, ref: d.ref };
    if (d.kind === 'point') {
      const same = known.get(locationNameKey(d.name));
      if (same !== undefined && samePoint(same, d)) {
        // Registered as declared: checked when it was, and the gazetteer stays unloaded.
        wanted.push({
          ...base,
          input: {
            name: d.name,
            lat: d.lat,
            lng: d.lng,
            countryCode: same.countryCode,
            registeredBy: same.registeredBy,
          },
        });
        continue;
      }
      let countryCode = d.country ?? null;
      if (countryCode !== null) {
        const verdict = checkPointCountry(d.lat, d.lng, countryCode);
        if (verdict.kind === 'refuse') problems.push(`${d.ref}: country ${verdict.message}`);
        if (verdict.kind === 'warn') warnings.push(`${d.ref}: country ${verdict.message}`);
      } else {
        const found = pointCountryCode(d.lat, d.lng);
        countryCode = found.countryCode;
        if (found.warning !== undefined) warnings.push(`${d.ref}: ${found.warning}`);
      }
      const input = {
        name: d.name,
        lat: d.lat,
        lng: d.lng,
        countryCode,
        registeredBy: 'coordinates' as const,
      };
      wanted.push({ ...base, input });
      continue;
    }
    const existing = known.get(locationNameKey(d.name ?? d.place));
    if (existing !== undefined) {
      wanted.push({
        ...base,
        input: {
          name: existing.name,
          lat: existing.lat,
          lng: existing.lng,
          countryCode: existing.countryCode,
          place: existing.place,
          registeredBy: existing.registeredBy,
          ingestByPlace: existing.ingestByPlace,
        },
      });
      continue;
    }
    const choice = choices.get(keyOf(d));
    if (choice === undefined) continue;
    if (choice.kind !== 'match') {
      const hint = (codes: readonly string[]) => `country: ${codes.join(' or ')}`;
      // Its text may come from a `${VAR}` or a `file:` entry: the ref says where it is.
      problems.push(`${d.ref}: ${describePlaceProblem(d.place, d.country, choice, hint, false)}`);
      continue;
    }
    const { match } = choice;
    wanted.push({
      ...base,
      input: {
        name: d.name ?? matchName(match) ?? d.place,
        lat: match.lat,
        lng: match.lng,
        countryCode: d.country ?? matchCountryCode(match),
        place: matchLabel(match) ?? d.place,
        alias: d.place,
        registeredBy: 'place',
        ingestByPlace: d.ingestByPlace,
      },
    });
  }
  const geocodeCalls = client === undefined ? 0 : (client.calls ?? distinct.size);
  return { wanted, problems, warnings, geocodeCalls };
}

const samePoint = (a: { lat: number; lng: number }, b: { lat: number; lng: number }) =>
  roundCoordinate(a.lat) === roundCoordinate(b.lat) &&
  roundCoordinate(a.lng) === roundCoordinate(b.lng);
