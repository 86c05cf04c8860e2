/** The products a key can be entitled to; every endpoint belongs to one. */
export const API_PRODUCTS = ['pollen', 'weather', 'geocode'] as const;
export type ApiProduct = (typeof API_PRODUCTS)[number];

/** What an endpoint answers, which decides the handler. */
export type EndpointOperation =
  | 'pollen-latest'
  | 'pollen-history'
  | 'pollen-forecast'
  | 'pollen-forecast-120hr'
  | 'weather-latest'
  | 'weather-history'
  | 'weather-forecast'
  | 'geocode'
  | 'reverse-geocode';

/** One of the 13 GET endpoints of the interface. */
export interface SimulatorEndpoint {
  /** Stable name used in stats and fault selectors: `pollen-history-by-lat-lng`. */
  readonly id: string;
  /** Path relative to the base address, exactly as the interface writes it. */
  readonly path: string;
  readonly product: ApiProduct;
  readonly operation: EndpointOperation;
  /** How the location is given. */
  readonly by: 'lat-lng' | 'place';
  /** Group names a fault selector may use besides `id`, `path` and `all`. */
  readonly tags: readonly string[];
}

const endpoint = (
  id: string,
  path: string,
  product: ApiProduct,
  operation: EndpointOperation,
  by: 'lat-lng' | 'place',
  kind: string,
): SimulatorEndpoint => ({
  id,
  path,
  product,
  operation,
  by,
  tags: [product, kind, `${product}-${kind}`, `by-${by}`],
});

/** The interface's endpoints, in the order of its tables. */
export const SIMULATOR_ENDPOINTS: readonly SimulatorEndpoint[] = [
  endpoint(
    'pollen-latest-by-lat-lng',
    '/latest/pollen/by-lat-lng',
    'pollen',
    'pollen-latest',
    'lat-lng',
    'latest',
  ),
  endpoint(
    'pollen-latest-by-place',
    '/latest/pollen/by-place',
    'pollen',
    'pollen-latest',
    'place',
    'latest',
  ),
  endpoint(
    'pollen-history-by-lat-lng',
    '/history/pollen/by-lat-lng',
    'pollen',
    'pollen-history',
    'lat-lng',
    'history',
  ),
  endpoint(
    'pollen-history-by-place',
    '/history/pollen/by-place',
    'pollen',
    'pollen-history',
    'place',
    'history',
  ),
  endpoint(
    'pollen-forecast-by-lat-lng',
    '/forecast/pollen/by-lat-lng',
    'pollen',
    'pollen-forecast',
    'lat-lng',
    'forecast',
  ),
  endpoint(
    'pollen-forecast-120hr-by-lat-lng',
    '/forecast/v2/pollen/120hr/by-lat-lng',
    'pollen',
    'pollen-forecast-120hr',
    'lat-lng',
    'forecast',
  ),
  endpoint(
    'pollen-forecast-by-place',
    '/forecast/pollen/by-place',
    'pollen',
    'pollen-forecast',
    'place',
    'forecast',
  ),
  endpoint(
    'pollen-forecast-120hr-by-place',
    '/forecast/v2/pollen/120hr/by-place',
    'pollen',
    'pollen-forecast-120hr',
    'place',
    'forecast',
  ),
  endpoint(
    'weather-latest',
    '/weather/latest/by-lat-lng',
    'weather',
    'weather-latest',
    'lat-lng',
    'latest',
  ),
  endpoint(
    'weather-history',
    '/weather/history/by-lat-lng',
    'weather',
    'weather-history',
    'lat-lng',
    'history',
  ),
  endpoint(
    'weather-forecast',
    '/weather/forecast/by-lat-lng',
    'weather',
    'weather-forecast',
    'lat-lng',
    'forecast',
  ),
  endpoint('geocode-by-place', '/geocode/by-place', 'geocode', 'geocode', 'place', 'by-place'),
  endpoint(
    'geocode-reverse',
    '/geocode/reverse/by-lat-lng',
    'geocode',
    'reverse-geocode',
    'lat-lng',
    'reverse',
  ),
];

/** Endpoints by path, for routing. */
export const ENDPOINT_BY_PATH: ReadonlyMap<string, SimulatorEndpoint> = new Map(
  SIMULATOR_ENDPOINTS.map((e) => [e.path, e]),
);

/**
 * Whether a fault selector names an endpoint: `all` (or `*`), the endpoint's id or path, its
 * product (`pollen`), its kind (`history`, `forecast`, `latest`) or both (`pollen-history`).
 */
export function endpointMatches(endpoint: SimulatorEndpoint, selector: string): boolean {
  return (
    selector === 'all' ||
    selector === '*' ||
    selector === endpoint.id ||
    selector === endpoint.path ||
    endpoint.tags.includes(selector)
  );
}

/** Whether an endpoint answers hourly history (pollen history by coordinates or place, weather history). */
export function isHistoryEndpoint(endpoint: SimulatorEndpoint): boolean {
  return endpoint.operation === 'pollen-history' || endpoint.operation === 'weather-history';
}
