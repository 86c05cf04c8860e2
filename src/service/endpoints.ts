/**
 * The 13 GET endpoints of the Environmental Data Service (seed interface), with what each one
 * accepts. The query rules (`encodeQuery`) and the client's methods are driven by this table; a
 * dataset that brings an endpoint of its own describes it with `endpoint(…)` the same way.
 */

/**
 * An option of an endpoint's query beside the location and the range, as data: `encodeQuery`
 * checks and sends it by its `type`, so an endpoint declares its options without a code change.
 */
export type QueryOption =
  /** Sent as given (`speciesRisk=true`) when the query has it; otherwise not sent. */
  | { readonly key: string; readonly type: 'boolean' }
  /** Always sent with its one accepted `value` (`units=si`), whether the query has it or not. */
  | { readonly key: string; readonly type: 'fixed'; readonly value: string };

/** Per-species risk evaluation (pollen); not sent unless asked for. */
export const SPECIES_RISK: QueryOption = Object.freeze({ key: 'speciesRisk', type: 'boolean' });

/** SI units (weather): always sent, since the service's own default is imperial. */
export const UNITS_SI: QueryOption = Object.freeze({ key: 'units', type: 'fixed', value: 'si' });

const POLLEN = [SPECIES_RISK];
const WEATHER = [UNITS_SI];
const NONE: readonly QueryOption[] = [];

export const ENDPOINTS = {
  pollenLatestByLatLng: endpoint('/latest/pollen/by-lat-lng', 'latLng', false, POLLEN),
  pollenLatestByPlace: endpoint('/latest/pollen/by-place', 'place', false, POLLEN),
  pollenHistoryByLatLng: endpoint('/history/pollen/by-lat-lng', 'latLng', true, POLLEN),
  pollenHistoryByPlace: endpoint('/history/pollen/by-place', 'place', true, POLLEN),
  pollenForecastByLatLng: endpoint('/forecast/pollen/by-lat-lng', 'latLng', false, POLLEN),
  pollenForecastByPlace: endpoint('/forecast/pollen/by-place', 'place', false, POLLEN),
  pollenForecast120hByLatLng: endpoint(
    '/forecast/v2/pollen/120hr/by-lat-lng',
    'latLng',
    false,
    POLLEN,
  ),
  pollenForecast120hByPlace: endpoint('/forecast/v2/pollen/120hr/by-place', 'place', false, POLLEN),
  weatherLatest: endpoint('/weather/latest/by-lat-lng', 'latLng', false, WEATHER),
  weatherHistory: endpoint('/weather/history/by-lat-lng', 'latLng', true, WEATHER),
  weatherForecast: endpoint('/weather/forecast/by-lat-lng', 'latLng', false, WEATHER),
  geocode: endpoint('/geocode/by-place', 'place', false, NONE),
  reverseGeocode: endpoint('/geocode/reverse/by-lat-lng', 'latLng', false, NONE),
} as const;

/** The client method name of each endpoint: `pollenHistoryByLatLng`, `weatherLatest`… */
export type EndpointName = keyof typeof ENDPOINTS;

/** How an endpoint is told the location. */
export type EndpointLocation = 'latLng' | 'place';

/** One endpoint of the table. */
export interface Endpoint {
  /** Path relative to the base address, e.g. `/history/pollen/by-lat-lng`. */
  readonly path: string;
  readonly location: EndpointLocation;
  /** Whether `from` and `to` are required (historical endpoints). */
  readonly range: boolean;
  /** What else the query may carry (`speciesRisk`, `units`). */
  readonly options: readonly QueryOption[];
}

/** Describes an endpoint (frozen). */
export function endpoint(
  path: string,
  location: EndpointLocation,
  range: boolean,
  options: readonly QueryOption[],
): Endpoint {
  return Object.freeze({ path, location, range, options: Object.freeze([...options]) });
}
