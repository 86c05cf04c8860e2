/**
 * The 13 GET endpoints of the Environmental Data Service (seed interface), with what each one
 * accepts. The query rules (`encodeQuery`) and the client's methods are driven by this table.
 */
export const ENDPOINTS = {
  pollenLatestByLatLng: endpoint('/latest/pollen/by-lat-lng', 'pollen', 'latLng', false),
  pollenLatestByPlace: endpoint('/latest/pollen/by-place', 'pollen', 'place', false),
  pollenHistoryByLatLng: endpoint('/history/pollen/by-lat-lng', 'pollen', 'latLng', true),
  pollenHistoryByPlace: endpoint('/history/pollen/by-place', 'pollen', 'place', true),
  pollenForecastByLatLng: endpoint('/forecast/pollen/by-lat-lng', 'pollen', 'latLng', false),
  pollenForecastByPlace: endpoint('/forecast/pollen/by-place', 'pollen', 'place', false),
  pollenForecast120hByLatLng: endpoint(
    '/forecast/v2/pollen/120hr/by-lat-lng',
    'pollen',
    'latLng',
    false,
  ),
  pollenForecast120hByPlace: endpoint(
    '/forecast/v2/pollen/120hr/by-place',
    'pollen',
    'place',
    false,
  ),
  weatherLatest: endpoint('/weather/latest/by-lat-lng', 'weather', 'latLng', false),
  weatherHistory: endpoint('/weather/history/by-lat-lng', 'weather', 'latLng', true),
  weatherForecast: endpoint('/weather/forecast/by-lat-lng', 'weather', 'latLng', false),
  geocode: endpoint('/geocode/by-place', 'geocode', 'place', false),
  reverseGeocode: endpoint('/geocode/reverse/by-lat-lng', 'geocode', 'latLng', false),
} as const;

/** The client method name of each endpoint: `pollenHistoryByLatLng`, `weatherLatest`… */
export type EndpointName = keyof typeof ENDPOINTS;

/** What an endpoint returns: decides the parser and which options (`speciesRisk`, `units`) apply. */
export type EndpointKind = 'pollen' | 'weather' | 'geocode';

/** How an endpoint is told the location. */
export type EndpointLocation = 'latLng' | 'place';

/** One endpoint of the table. */
export interface Endpoint {
  /** Path relative to the base address, e.g. `/history/pollen/by-lat-lng`. */
  readonly path: string;
  readonly kind: EndpointKind;
  readonly location: EndpointLocation;
  /** Whether `from` and `to` are required (historical endpoints). */
  readonly range: boolean;
}

function endpoint(
  path: string,
  kind: EndpointKind,
  location: EndpointLocation,
  range: boolean,
): Endpoint {
  return Object.freeze({ path, kind, location, range });
}
