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
  pollenLatestByLatLng: endpoint(
    '/latest/pollen/by-lat-lng',
    'latLng',
    false,
    POLLEN,
    'pollen_latest',
  ),
  pollenLatestByPlace: endpoint('/latest/pollen/by-place', 'place', false, POLLEN, 'pollen_latest'),
  pollenHistoryByLatLng: endpoint(
    '/history/pollen/by-lat-lng',
    'latLng',
    true,
    POLLEN,
    'pollen_history',
  ),
  pollenHistoryByPlace: endpoint(
    '/history/pollen/by-place',
    'place',
    true,
    POLLEN,
    'pollen_history',
  ),
  pollenForecastByLatLng: endpoint(
    '/forecast/pollen/by-lat-lng',
    'latLng',
    false,
    POLLEN,
    'pollen_forecast_48h',
  ),
  pollenForecastByPlace: endpoint(
    '/forecast/pollen/by-place',
    'place',
    false,
    POLLEN,
    'pollen_forecast_48h',
  ),
  pollenForecast120hByLatLng: endpoint(
    '/forecast/v2/pollen/120hr/by-lat-lng',
    'latLng',
    false,
    POLLEN,
    'pollen_forecast_120h',
  ),
  pollenForecast120hByPlace: endpoint(
    '/forecast/v2/pollen/120hr/by-place',
    'place',
    false,
    POLLEN,
    'pollen_forecast_120h',
  ),
  weatherLatest: endpoint('/weather/latest/by-lat-lng', 'latLng', false, WEATHER, 'weather_latest'),
  weatherHistory: endpoint(
    '/weather/history/by-lat-lng',
    'latLng',
    true,
    WEATHER,
    'weather_history',
  ),
  weatherForecast: endpoint(
    '/weather/forecast/by-lat-lng',
    'latLng',
    false,
    WEATHER,
    'weather_forecast_72h',
  ),
  geocode: endpoint('/geocode/by-place', 'place', false, NONE, 'geocode'),
  reverseGeocode: endpoint('/geocode/reverse/by-lat-lng', 'latLng', false, NONE, 'reverse_geocode'),
} as const;

/** The client method name of each endpoint: `pollenHistoryByLatLng`, `weatherLatest`… */
export type EndpointName = keyof typeof ENDPOINTS;

/** How an endpoint is told the location. */
export type EndpointLocation = 'latLng' | 'place';

/** One endpoint of the table. */
export interface Endpoint {
  /**
   * Its logical name, how metrics and `envdata.api_call_minute` count its calls: one name for
   * the by-coordinates and by-place forms of an answer (`pollen_history`, `weather_latest`,
   * `geocode`…). A bounded set: never a location or a query.
   */
  readonly name: string;
  /** Path relative to the base address, e.g. `/history/pollen/by-lat-lng`. */
  readonly path: string;
  readonly location: EndpointLocation;
  /** Whether `from` and `to` are required (historical endpoints). */
  readonly range: boolean;
  /** What else the query may carry (`speciesRisk`, `units`). */
  readonly options: readonly QueryOption[];
}

/**
 * Describes an endpoint (frozen). `name` defaults to the path in snake case
 * (`/weather/history/by-lat-lng` → `weather_history_by_lat_lng`).
 */
export function endpoint(
  path: string,
  location: EndpointLocation,
  range: boolean,
  options: readonly QueryOption[],
  name: string = nameOfPath(path),
): Endpoint {
  return Object.freeze({ name, path, location, range, options: Object.freeze([...options]) });
}

function nameOfPath(path: string): string {
  return path
    .replace(/^\/+|\/+$/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toLowerCase();
}
