import type { ServiceDateTime } from './service-date-time.js';

/**
 * The queries of the client's methods. The types keep each endpoint's options to that endpoint
 * (`speciesRisk` on pollen only, `units` on weather only); `encodeQuery` checks the same rules at
 * run time for JavaScript callers and CLI input.
 */

/** A point: `lat` in [-90, 90], `lng` in [-180, 180]; sent rounded to 4 decimals. */
export interface LatLngQuery {
  readonly lat: number;
  readonly lng: number;
}

/** A place name or address; must not be blank. Sent trimmed. */
export interface PlaceQuery {
  readonly place: string;
}

/** An instant for `from`/`to`: a whole-second `Date`, or `YYYY-MM-DD hh:mm:ss` read as UTC. */
export type ServiceInstant = Date | ServiceDateTime;

/** The search period of historical endpoints; `from` must be strictly before `to`. */
export interface RangeQuery {
  readonly from: ServiceInstant;
  readonly to: ServiceInstant;
}

/** Options of the pollen endpoints. */
export interface PollenOptions {
  /** Ask for the per-species risk evaluation (regions with sub-species data only). Default: not sent. */
  readonly speciesRisk?: boolean;
  readonly units?: never;
}

/** Unit systems the client asks for; only SI is stored, so only SI is offered. */
export type WeatherUnits = 'si';

/** Options of the weather endpoints. */
export interface WeatherOptions {
  /** Default `si`; always sent (the service's own default is imperial). */
  readonly units?: WeatherUnits;
  readonly speciesRisk?: never;
}

/** Geocoding takes neither `speciesRisk` nor `units`. */
export interface GeocodeOptions {
  readonly speciesRisk?: never;
  readonly units?: never;
}

/**
 * The query of each method. `NoRange`/`NoPlace`/`NoLatLng` forbid keys of other endpoints at
 * compile time, even when the query is built in a variable.
 */
export type PollenLatLngQuery = LatLngQuery & PollenOptions & NoRange & NoPlace;
export type PollenPlaceQuery = PlaceQuery & PollenOptions & NoRange & NoLatLng;
export type PollenHistoryLatLngQuery = LatLngQuery & RangeQuery & PollenOptions & NoPlace;
export type PollenHistoryPlaceQuery = PlaceQuery & RangeQuery & PollenOptions & NoLatLng;
export type WeatherQuery = LatLngQuery & WeatherOptions & NoRange & NoPlace;
export type WeatherHistoryQuery = LatLngQuery & RangeQuery & WeatherOptions & NoPlace;
export type GeocodeQuery = PlaceQuery & GeocodeOptions & NoRange & NoLatLng;
export type ReverseGeocodeQuery = LatLngQuery & GeocodeOptions & NoRange & NoPlace;

interface NoRange {
  readonly from?: never;
  readonly to?: never;
}
interface NoPlace {
  readonly place?: never;
}
interface NoLatLng {
  readonly lat?: never;
  readonly lng?: never;
}
