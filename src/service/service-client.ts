import { checkServiceClientOptions } from './check-service-client-options.js';
import type { DocumentParser } from './document-parser.js';
import { encodeQuery } from './encode-query.js';
import { ENDPOINTS, type Endpoint } from './endpoints.js';
import type {
  GeocodePayload,
  HistoryPayload,
  LatestPollenPayload,
  LatestWeatherPayload,
  ParsedPayload,
  PollenPayload,
  WeatherPayload,
} from './models.js';
import { parseGeocodeDocument } from './parse-geocode-body.js';
import { parseLatestPollenDocument, parsePollenDocument } from './parse-pollen-body.js';
import { parseLatestWeatherDocument, parseWeatherDocument } from './parse-weather-body.js';
import { readServiceResponse } from './read-service-response.js';
import { redactServiceError } from './redact-service-error.js';
import type { ServiceClientOptions } from './service-client-options.js';
import type {
  GeocodeQuery,
  PollenHistoryLatLngQuery,
  PollenHistoryPlaceQuery,
  PollenLatLngQuery,
  PollenPlaceQuery,
  ReverseGeocodeQuery,
  WeatherHistoryQuery,
  WeatherQuery,
} from './service-query.js';
import { ServiceTransport, type ServiceAnswer } from './service-transport.js';
import { inSpan, inSpanSync, type TraceParent } from '../tracing/tracing.js';

/**
 * The typed client of the Environmental Data Service: one method per endpoint (13), the only
 * place envdata makes HTTP calls to it. Each method checks its query first (`INVALID_QUERY`, no
 * request), makes exactly one request (retries are the caller's: see `ServiceError.retryable`),
 * and returns the parsed payload: valid records in `records`, unfit ones in `rejected`, the exact
 * body in `rawBody`. History methods also say whether the answer is `complete`: a trimmed `206`
 * is a value (`complete: false`, the records received kept), not an error. Every failure is a
 * `ServiceError` with a stable `code`.
 */
export interface ServiceClient {
  /** `GET /latest/pollen/by-lat-lng`: a reading sent without a stamp is kept, `at` undefined. */
  pollenLatestByLatLng(query: PollenLatLngQuery): Promise<LatestPollenPayload>;
  /** `GET /latest/pollen/by-place`: a reading sent without a stamp is kept, `at` undefined. */
  pollenLatestByPlace(query: PollenPlaceQuery): Promise<LatestPollenPayload>;
  /** `GET /history/pollen/by-lat-lng`: hourly records in `[from, to)`. */
  pollenHistoryByLatLng(query: PollenHistoryLatLngQuery): Promise<HistoryPayload<PollenPayload>>;
  /** `GET /history/pollen/by-place`: hourly records in `[from, to)`. */
  pollenHistoryByPlace(query: PollenHistoryPlaceQuery): Promise<HistoryPayload<PollenPayload>>;
  /** `GET /forecast/pollen/by-lat-lng`: 48 hourly records. */
  pollenForecastByLatLng(query: PollenLatLngQuery): Promise<PollenPayload>;
  /** `GET /forecast/pollen/by-place`: 48 hourly records. */
  pollenForecastByPlace(query: PollenPlaceQuery): Promise<PollenPayload>;
  /** `GET /forecast/v2/pollen/120hr/by-lat-lng`: 40 three-hourly records. */
  pollenForecast120hByLatLng(query: PollenLatLngQuery): Promise<PollenPayload>;
  /** `GET /forecast/v2/pollen/120hr/by-place`: 40 three-hourly records. */
  pollenForecast120hByPlace(query: PollenPlaceQuery): Promise<PollenPayload>;
  /**
   * `GET /weather/latest/by-lat-lng`: a payload with one record, kept with `at` undefined when
   * sent without a stamp. `units` default `si`.
   */
  weatherLatest(query: WeatherQuery): Promise<LatestWeatherPayload>;
  /** `GET /weather/history/by-lat-lng`: hourly records. `units` default `si`. */
  weatherHistory(query: WeatherHistoryQuery): Promise<HistoryPayload<WeatherPayload>>;
  /** `GET /weather/forecast/by-lat-lng`: hourly records over 72 h. `units` default `si`. */
  weatherForecast(query: WeatherQuery): Promise<WeatherPayload>;
  /** `GET /geocode/by-place`: matches, best first. */
  geocode(query: GeocodeQuery): Promise<GeocodePayload>;
  /** `GET /geocode/reverse/by-lat-lng`: nearby named locations, best first. */
  reverseGeocode(query: ReverseGeocodeQuery): Promise<GeocodePayload>;
  /**
   * Any endpoint described with `endpoint(…)`, its body read by `parseDocument`: how a dataset
   * that brings an endpoint of its own calls the service. The methods above are this with their
   * row of `ENDPOINTS`. A `206` is `PARTIAL`, like on every endpoint that is not a history one.
   */
  request<TPayload extends ParsedPayload<unknown>>(
    endpoint: Endpoint,
    query: object,
    parseDocument: DocumentParser<TPayload>,
  ): Promise<TPayload>;
  /** Like `request`, for a history endpoint: a trimmed `206` comes back with `complete: false`. */
  requestHistory<TPayload extends ParsedPayload<unknown>>(
    endpoint: Endpoint,
    query: object,
    parseDocument: DocumentParser<TPayload>,
  ): Promise<HistoryPayload<TPayload>>;
  /**
   * The same client, its calls' spans (`envdata.http`, `envdata.parse`) under `parent` (a job's
   * span); itself when `parent` is undefined (tracing off).
   */
  traced(parent: TraceParent | undefined): ServiceClient;
  /** Closes the connection pool after in-flight requests finish. Idempotent. */
  close(): Promise<void>;
}

/** Distinct implausible `Retry-After` values warned about per client; a flood of them says no more. */
const MAX_IMPLAUSIBLE_WARNINGS = 16;

/**
 * Creates the client with one keep-alive connection pool to `baseUrl`.
 *
 * @throws EnvdataError `CONFIG_INVALID` when the options are unusable (no key, bad address…).
 * @example
 * ```ts
 * const client = createServiceClient({ ...config.service, apiKey, logger });
 * const payload = await client.pollenHistoryByLatLng({
 *   lat: 41.3874, lng: 2.1686, from: '2024-11-01 00:00:00', to: '2024-11-03 00:00:00',
 * });
 * await client.close();
 * ```
 */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const { origin, basePath } = checkServiceClientOptions(options);
  const { apiKey } = options;
  const log = options.logger?.child({ component: 'service-client' });
  /** The implausible `Retry-After` values already warned about: each is said once. */
  const implausibleSeen = new Set<string>();
  const onImplausibleRetryAfter = (value: string, endpointPath: string, status: number) => {
    if (implausibleSeen.has(value) || implausibleSeen.size >= MAX_IMPLAUSIBLE_WARNINGS) return;
    implausibleSeen.add(value);
    log?.warn(
      { endpoint: endpointPath, status, retryAfter: value },
      'the service sent a Retry-After of more than a day: not believed, the shared backoff applies instead (said once per value)',
    );
  };
  const transport = new ServiceTransport(options, origin, basePath, log);

  async function call<TPayload extends ParsedPayload<unknown>>(
    endpoint: Endpoint,
    query: unknown,
    parseDocument: DocumentParser<TPayload>,
    parent: TraceParent | undefined,
  ): Promise<TPayload> {
    try {
      return (await send(endpoint, query, parseDocument, false, parent)).payload;
    } catch (error) {
      throw redactServiceError(error, apiKey);
    }
  }

  async function callHistory<TPayload extends ParsedPayload<unknown>>(
    endpoint: Endpoint,
    query: unknown,
    parseDocument: DocumentParser<TPayload>,
    parent: TraceParent | undefined,
  ): Promise<HistoryPayload<TPayload>> {
    try {
      const { payload, complete } = await send(endpoint, query, parseDocument, true, parent);
      return { ...payload, complete };
    } catch (error) {
      throw redactServiceError(error, apiKey);
    }
  }

  /**
   * One request: the query checked (`INVALID_QUERY`, nothing sent), sent, and its answer read. A
   * `206` answer is returned with `complete: false` when `keepPartial` (history: the records
   * received are worth landing), and is `PARTIAL` otherwise.
   */
  async function send<TPayload extends ParsedPayload<unknown>>(
    endpoint: Endpoint,
    query: unknown,
    parseDocument: DocumentParser<TPayload>,
    keepPartial: boolean,
    parent: TraceParent | undefined,
  ): Promise<{ payload: TPayload; complete: boolean }> {
    const queryString = encodeQuery(endpoint, query);
    // Traced: the call (`envdata.http GET <path>`: status, bytes, Retry-After; never the query,
    // which holds the key) and the reading of its answer (`envdata.parse`).
    const answer = await inSpan(
      `envdata.http GET ${endpoint.path}`,
      async (span) => {
        const answered = await transport.send(endpoint, queryString);
        if (span.recording) span.setAttributes(answerAttributes(answered));
        return answered;
      },
      {
        kind: 'client',
        parent,
        attributes: { 'http.request.method': 'GET', 'url.path': endpoint.path },
      },
    );
    return inSpanSync(
      'envdata.parse',
      (span) => {
        const read = readServiceResponse(answer, {
          endpoint,
          queryString,
          parseDocument,
          keepPartial,
          log,
          onImplausibleRetryAfter,
        });
        span.setAttributes({
          'envdata.parse.records': read.payload.records.length,
          'envdata.parse.rejected': read.payload.rejected.length,
          'envdata.parse.complete': read.complete,
        });
        return read;
      },
      { parent, attributes: { 'url.path': endpoint.path } },
    );
  }

  const E = ENDPOINTS;
  /** The methods, their spans under `p`. */
  const client = (p: TraceParent | undefined): ServiceClient => ({
    pollenLatestByLatLng: (q) => call(E.pollenLatestByLatLng, q, parseLatestPollenDocument, p),
    pollenLatestByPlace: (q) => call(E.pollenLatestByPlace, q, parseLatestPollenDocument, p),
    pollenHistoryByLatLng: (q) => callHistory(E.pollenHistoryByLatLng, q, parsePollenDocument, p),
    pollenHistoryByPlace: (q) => callHistory(E.pollenHistoryByPlace, q, parsePollenDocument, p),
    pollenForecastByLatLng: (q) => call(E.pollenForecastByLatLng, q, parsePollenDocument, p),
    pollenForecastByPlace: (q) => call(E.pollenForecastByPlace, q, parsePollenDocument, p),
    pollenForecast120hByLatLng: (q) =>
      call(E.pollenForecast120hByLatLng, q, parsePollenDocument, p),
    pollenForecast120hByPlace: (q) => call(E.pollenForecast120hByPlace, q, parsePollenDocument, p),
    weatherLatest: (q) => call(E.weatherLatest, q, parseLatestWeatherDocument, p),
    weatherHistory: (q) => callHistory(E.weatherHistory, q, parseWeatherDocument, p),
    weatherForecast: (q) => call(E.weatherForecast, q, parseWeatherDocument, p),
    geocode: (q) => call(E.geocode, q, parseGeocodeDocument, p),
    reverseGeocode: (q) => call(E.reverseGeocode, q, parseGeocodeDocument, p),
    request: (endpoint, q, parseDocument) => call(endpoint, q, parseDocument, p),
    requestHistory: (endpoint, q, parseDocument) => callHistory(endpoint, q, parseDocument, p),
    traced: (parent) => (parent === undefined ? untraced : client(parent)),
    close: () => transport.close(),
  });
  const untraced = client(undefined);
  return untraced;
}

/** What the HTTP span of a call says of its answer: never a header that could carry a secret. */
function answerAttributes(answer: ServiceAnswer): Record<string, string | number | undefined> {
  const retryAfter = answer.headers['retry-after'];
  const length = Number(answer.headers['content-length']);
  return {
    'http.response.status_code': answer.status,
    // What the service said it sent; else the characters read (no second pass over the body).
    'http.response.body.size': Number.isSafeInteger(length) ? length : answer.body.length,
    'http.response.header.retry-after': Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
  };
}
