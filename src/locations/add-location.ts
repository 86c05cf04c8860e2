import type { Kysely } from 'kysely';
import { EnvdataError } from '../errors/envdata-error.js';
import { nearestPlace } from '../geo/nearest-place.js';
import type { ServiceClient } from '../service/service-client.js';
import type { Database } from '../warehouse/schema.js';
import { describePlaceProblem } from './choose-place-match.js';
import {
  describeConflict,
  findLocationConflicts,
  type LocationKey,
} from './find-location-conflicts.js';
import { checkPointCountry } from './check-point-country.js';
import { insertLocation } from './insert-location.js';
import { locatePlace } from './locate-place.js';
import type { Location, NewLocation } from './location.js';
import { locationTextProblem } from './location-text-problem.js';
import { matchCountryCode, matchLabel, matchName } from './match-name.js';
import { namePoint } from './name-point.js';
import { parseCountryCode } from './parse-country-code.js';
import { pointCountryCode } from './point-country-code.js';
import { stripUnsafeCharacters } from './unsafe-characters.js';

export interface AddByPlaceRequest {
  /** Free text the service geocodes: `Berlin`, `Springfield, Illinois`. */
  readonly place: string;
  /** ISO 3166-1 alpha-2: only matches in this country count. */
  readonly country?: string | undefined;
  /** Overrides the name the service gives the place. */
  readonly name?: string | undefined;
  /** Record that pollen should be ingested through the by-place endpoints. Default `false`. */
  readonly ingestByPlace?: boolean | undefined;
}

export interface AddByPointRequest {
  readonly lat: number;
  readonly lng: number;
  /** Without it, the service's reverse geocoding names the point. */
  readonly name?: string | undefined;
  /**
   * ISO 3166-1 alpha-2, any case. Checked against the point (`checkPointCountry`): a country the
   * point is clearly not in is refused. Without it: the reverse geocoding's country, or the
   * local gazetteer's when a name is given.
   */
  readonly country?: string | undefined;
}

export interface AddLocationOptions {
  /** Receives what the operator should know but does not stop the registration. */
  readonly onWarning?: (message: string) => void;
}

/**
 * Registers the place the service geocodes `place` to (one call): name, coordinates and country
 * of the best match (`choosePlaceMatch`), with `location.place` set to the match's label (the
 * text the by-place endpoints will resolve to this very place: "Valencia" alone may mean
 * Venezuela). The `place` as typed is kept as an alias when it reads otherwise than the name
 * (`--place Zurich` registers "Zürich", found as `--location Zurich` too). No match or an
 * ambiguous place is a `USAGE` error naming the candidates; a duplicate is a `CONFLICT`.
 * Nothing is written in either case.
 *
 * A place text that reads as another location's name or alias is a `CONFLICT` too, unless a
 * `name` was given: the operator then refers to the location by that name, so it is registered
 * without the alias and `onWarning` says so.
 *
 * The place, a given name and a given country are checked before the call (no control or
 * bidirectional characters, no all-digit name, an ISO 3166-1 alpha-2 code); the service's name
 * and label are cleaned of such characters (`matchName`, `matchLabel`).
 */
export async function addLocationByPlace(
  db: Kysely<Database>,
  client: Pick<ServiceClient, 'geocode'>,
  request: AddByPlaceRequest,
  options: AddLocationOptions = {},
): Promise<Location> {
  const place = request.place.trim();
  checkText('place', place, 'given');
  if (request.name !== undefined) checkText('name', request.name.trim(), 'given');
  const country = request.country === undefined ? undefined : countryCodeOf(request.country);
  const choice = await locatePlace(client, place, country);
  if (choice.kind !== 'match') {
    throw new EnvdataError(
      choice.kind === 'none' ? 'NOT_FOUND' : 'USAGE',
      describePlaceProblem(place, country, choice, (codes) => `--country ${codes.join('|')}`),
      { details: { place, country } },
    );
  }
  const { match } = choice;
  const name = request.name?.trim() ?? matchName(match) ?? place;
  if (request.name === undefined) checkText('name', name, 'service');
  return insertChecked(
    db,
    {
      name,
      lat: match.lat,
      lng: match.lng,
      countryCode: country ?? matchCountryCode(match),
      place: matchLabel(match) ?? place,
      alias: place,
      registeredBy: 'place',
      ingestByPlace: request.ingestByPlace ?? false,
    },
    request.name !== undefined ? options : undefined,
  );
}

/**
 * Registers a point. Without a name, the service's reverse geocoding names it (one call): the
 * service is the one source of place names when it is configured, so a point is named like a
 * place registered by `--place`, and a refused key or a rate limit is reported, never papered
 * over with a local guess; a point the service cannot name asks for a name. Without a `client`
 * (no API key configured), the nearest place of the local gazetteer names it, as before the
 * service was involved: registering points stays possible offline, and the caller says so.
 * With a name no call is made, and the country, when not given, comes from the local gazetteer
 * (a billed call saved; `pointCountryCode`: none at sea, none near a border, with a warning). A
 * duplicate is a `CONFLICT`.
 *
 * A given country is checked before any call: not a country's code, or a country the point is
 * clearly not in, is a `USAGE` error naming the point's country; where the gazetteer cannot tell
 * (open sea, a border a few km away) it is kept and `onWarning` says so. Names with control or
 * bidirectional characters, or of digits only, are refused; a name from the service is cleaned
 * of such characters first (`matchName`).
 */
export async function addLocationByPoint(
  db: Kysely<Database>,
  client: Pick<ServiceClient, 'reverseGeocode'> | undefined,
  request: AddByPointRequest,
  options: AddLocationOptions = {},
): Promise<Location> {
  const { lat, lng } = request;
  let name = request.name?.trim();
  if (name !== undefined) checkText('name', name, 'given');
  let countryCode = request.country === undefined ? null : countryCodeOf(request.country);
  if (countryCode !== null) {
    const verdict = checkPointCountry(lat, lng, countryCode);
    if (verdict.kind === 'refuse') {
      throw new EnvdataError('USAGE', `--country ${countryCode}: ${verdict.message}`, {
        details: { lat, lng, country: countryCode, pointCountry: verdict.pointCountry },
      });
    }
    if (verdict.kind === 'warn')
      options.onWarning?.(`--country ${countryCode}: ${verdict.message}`);
  }
  if (name === undefined && client !== undefined) {
    const named = await namePoint(client, lat, lng);
    if (named === undefined) {
      throw new EnvdataError(
        'USAGE',
        `the service knows no named place near ${lat}, ${lng}: give it a --name`,
      );
    }
    name = named.name;
    checkText('name', name, 'service');
    countryCode ??= named.countryCode;
  } else {
    const near = nearestPlace(lat, lng);
    if (name === undefined && near !== undefined) {
      name = stripUnsafeCharacters(near.name);
      checkText('name', name, 'gazetteer');
    }
    if (countryCode === null) {
      const found = pointCountryCode(lat, lng);
      countryCode = found.countryCode;
      if (found.warning !== undefined) options.onWarning?.(found.warning);
    }
    if (name === undefined) {
      throw new EnvdataError('USAGE', `no place is known near ${lat}, ${lng}: give it a --name`);
    }
  }
  return insertChecked(db, { name, lat, lng, countryCode, registeredBy: 'coordinates' });
}

/** An upper-case country code, or a `USAGE` error saying what is wrong with the text. */
function countryCodeOf(text: string): string {
  const parsed = parseCountryCode(text);
  if (!parsed.ok) throw new EnvdataError('USAGE', `--country ${parsed.reason}`);
  return parsed.code;
}

/**
 * Refuses a name or place text that cannot be registered (`locationTextProblem`): a `USAGE`
 * error that says where the text came from and what to do.
 */
function checkText(
  kind: 'name' | 'place',
  text: string,
  source: 'given' | 'service' | 'gazetteer',
): void {
  const found = locationTextProblem(kind, text);
  if (found === undefined) return;
  const message =
    source === 'given'
      ? `--${kind} ${found.problem}: ${found.fix}`
      : `the ${source === 'service' ? "service's" : "local gazetteer's"} name for this place ${found.problem}: give the location a --name`;
  throw new EnvdataError('USAGE', message, { details: { kind, source } });
}

/**
 * Inserts after checking name, alias and point, so a duplicate says which location holds them
 * and what to do: another name helps a taken name, never a taken point (it is that location
 * already). With `dropTakenAlias` (the operator named the location), a taken alias is left out
 * with a warning instead of refused.
 */
async function insertChecked(
  db: Kysely<Database>,
  input: NewLocation,
  dropTakenAlias?: AddLocationOptions,
): Promise<Location> {
  const key: LocationKey = input;
  let conflicts = await findLocationConflicts(db, [key]);
  const alias = conflicts.find((c) => c.on === 'alias');
  if (alias !== undefined && dropTakenAlias !== undefined) {
    dropTakenAlias.onWarning?.(
      `the place text is not kept as another name of "${input.name.normalize('NFC').trim()}": ` +
        `${describeConflict(key, alias)}; --location ${JSON.stringify(alias.taken?.text ?? '')} means location ${alias.existing.locationId}`,
    );
    input = { ...input, alias: null };
    conflicts = conflicts.filter((c) => c !== alias);
  }
  if (conflicts.length > 0) {
    const point = conflicts.find((c) => c.on === 'point');
    const advice =
      point !== undefined
        ? `A point is registered once: use location ${point.existing.locationId} ` +
          `("${point.existing.name}"), or see \`envdata locations list\``
        : conflicts.some((c) => c.on === 'name')
          ? 'Choose another --name, or see `envdata locations list`'
          : '--location will find the new location by its place text too: give it a --name of ' +
            'your own (the place text is then not kept), or write the place so that it reads as ' +
            'no other location, or see `envdata locations list`';
    throw new EnvdataError(
      'CONFLICT',
      `cannot register "${input.name.normalize('NFC').trim()}": ${conflicts.map((c) => describeConflict(key, c)).join('; ')}. ` +
        advice,
      {
        details: {
          conflicts: conflicts.map((c) => ({ on: c.on, locationId: c.existing.locationId })),
        },
      },
    );
  }
  return insertLocation(db, input);
}
