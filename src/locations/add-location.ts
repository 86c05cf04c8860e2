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
import { insertLocation } from './insert-location.js';
import { locatePlace } from './locate-place.js';
import type { Location, NewLocation } from './location.js';
import { matchCountryCode, matchName } from './match-name.js';
import { namePoint } from './name-point.js';

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
  /** Without it: the reverse geocoding's country, or the local gazetteer's when a name is given. */
  readonly country?: string | undefined;
}

/**
 * Registers the place the service geocodes `place` to (one call): name, coordinates and country
 * of the best match (`choosePlaceMatch`), with `location.place` set to the match's label (the
 * text the by-place endpoints will resolve to this very place: "Valencia" alone may mean
 * Venezuela). No match or an ambiguous place is a `USAGE` error naming the candidates; a
 * duplicate is a `CONFLICT`. Nothing is written in either case.
 */
export async function addLocationByPlace(
  db: Kysely<Database>,
  client: Pick<ServiceClient, 'geocode'>,
  request: AddByPlaceRequest,
): Promise<Location> {
  const place = request.place.trim();
  const choice = await locatePlace(client, place, request.country);
  if (choice.kind !== 'match') {
    throw new EnvdataError(
      choice.kind === 'none' ? 'NOT_FOUND' : 'USAGE',
      describePlaceProblem(
        place,
        request.country,
        choice,
        (codes) => `--country ${codes.join('|')}`,
      ),
      { details: { place, country: request.country } },
    );
  }
  const { match } = choice;
  return insertChecked(db, {
    name: request.name ?? matchName(match) ?? place,
    lat: match.lat,
    lng: match.lng,
    countryCode: request.country?.toUpperCase() ?? matchCountryCode(match),
    place: match.label?.trim() || place,
    registeredBy: 'place',
    ingestByPlace: request.ingestByPlace ?? false,
  });
}

/**
 * Registers a point. Without a name, the service's reverse geocoding names it (one call): the
 * service is the one source of place names when it is configured, so a point is named like a
 * place registered by `--place`, and a refused key or a rate limit is reported, never papered
 * over with a local guess; a point the service cannot name asks for a name. Without a `client`
 * (no API key configured), the nearest place of the local gazetteer names it, as before the
 * service was involved: registering points stays possible offline, and the caller says so.
 * With a name no call is made, and the country, when not given, comes from the local gazetteer
 * (a billed call saved). A duplicate is a `CONFLICT`.
 */
export async function addLocationByPoint(
  db: Kysely<Database>,
  client: Pick<ServiceClient, 'reverseGeocode'> | undefined,
  request: AddByPointRequest,
): Promise<Location> {
  const { lat, lng } = request;
  let name = request.name?.trim();
  let countryCode = request.country?.toUpperCase() ?? null;
  if (name === undefined && client !== undefined) {
    const named = await namePoint(client, lat, lng);
    if (named === undefined) {
      throw new EnvdataError(
        'USAGE',
        `the service knows no named place near ${lat}, ${lng}: give it a --name`,
      );
    }
    name = named.name;
    countryCode ??= named.countryCode;
  } else {
    const near = nearestPlace(lat, lng);
    name ??= near?.name;
    countryCode ??= near?.countryCode ?? null;
    if (name === undefined) {
      throw new EnvdataError('USAGE', `no place is known near ${lat}, ${lng}: give it a --name`);
    }
  }
  return insertChecked(db, { name, lat, lng, countryCode, registeredBy: 'coordinates' });
}

/** Inserts after checking name and point, so a duplicate says which location holds them. */
async function insertChecked(db: Kysely<Database>, input: NewLocation): Promise<Location> {
  const key: LocationKey = input;
  const conflicts = await findLocationConflicts(db, [key]);
  if (conflicts.length > 0) {
    throw new EnvdataError(
      'CONFLICT',
      `cannot register "${input.name.trim()}": ${conflicts.map((c) => describeConflict(key, c)).join('; ')}. ` +
        'Choose another --name, or see `envdata locations list`',
      {
        details: {
          conflicts: conflicts.map((c) => ({ on: c.on, locationId: c.existing.locationId })),
        },
      },
    );
  }
  return insertLocation(db, input);
}
