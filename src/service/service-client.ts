import { trackResource } from '../lifecycle/open-resources.js';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type * as Undici from 'undici';
import { EnvdataError } from '../errors/envdata-error.js';
import type { Logger } from '../logging/create-logger.js';
import { classifyResponse } from './classify-response.js';
import {
  CallAborted,
  RequestDeadlineExceeded,
  classifyTransportError,
} from './classify-transport-error.js';
import { encodeQuery } from './encode-query.js';
import { ENDPOINTS, type Endpoint } from './endpoints.js';
import type {
  GeocodePayload,
  HistoryPayload,
  ParsedPayload,
  PollenPayload,
  WeatherPayload,
} from './models.js';
import { parseJsonBody, type ParseContext } from './parse-envelope.js';
import { parseGeocodeDocument } from './parse-geocode-body.js';
import { parsePartialBody } from './parse-partial-body.js';
import { parsePollenDocument } from './parse-pollen-body.js';
import { parseWeatherDocument } from './parse-weather-body.js';
import { readCappedBody } from './read-capped-body.js';
import { redactServiceError } from './redact-service-error.js';
import { scrubSecret } from './scrub-secret.js';
import { ServiceError } from './service-error.js';
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

/** Options of `createServiceClient`; the shape of `Config['service']` plus the key and a logger. */
export interface ServiceClientOptions {
  /** Base address, e.g. `https://api.example.com` or `http://127.0.0.1:8787`; a path prefix is kept. */
  readonly baseUrl: string;
  /** Sent as `x-api-key`; never logged, never in an error. */
  readonly apiKey: string;
  /** Sent as `Accept-Language` when set. */
  readonly language?: string | undefined;
  /** Keep-alive connections to the service (the pool's upper bound). */
  readonly connections: number;
  /** Limit for establishing a connection. */
  readonly connectTimeoutMs: number;
  /** Limit for one request, from sending it to the last byte of the body. */
  readonly requestTimeoutMs: number;
  /**
   * Largest answer body read, in bytes (ENVDATA_HTTP_MAX_BODY_BYTES); a larger one is refused
   * as soon as it passes the limit (`RESPONSE_TOO_LARGE`). Default `DEFAULT_MAX_BODY_BYTES`.
   */
  readonly maxBodyBytes?: number | undefined;
  /** Aborting it abandons every call in flight (`ABORTED`) and refuses new ones: a shutdown. */
  readonly signal?: AbortSignal | undefined;
  /** Receives a `debug` line per call and a `warn` line per payload with rejected records. */
  readonly logger?: Logger | undefined;
  /**
   * Told of every request that reached the wire, once it is answered or failed: the endpoint's
   * logical `name` and the HTTP status as a string (`"200"`, `"429"`), or `"error"` for a
   * transport failure or timeout. A query refused before sending is no call. It must be cheap
   * and must not throw (metrics, `envdata.api_call_minute`).
   */
  readonly onCall?: ((endpoint: string, status: string) => void) | undefined;
}

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
  /** `GET /latest/pollen/by-lat-lng` */
  pollenLatestByLatLng(query: PollenLatLngQuery): Promise<PollenPayload>;
  /** `GET /latest/pollen/by-place` */
  pollenLatestByPlace(query: PollenPlaceQuery): Promise<PollenPayload>;
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
  /** `GET /weather/latest/by-lat-lng`: a payload with one record. `units` default `si`. */
  weatherLatest(query: WeatherQuery): Promise<WeatherPayload>;
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
  /** Closes the connection pool after in-flight requests finish. Idempotent. */
  close(): Promise<void>;
}

/** 1 MiB: about 29 times the largest 48 h history body of the simulator (36,352 bytes). */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/** Distinct implausible `Retry-After` values warned about per client; a flood of them says no more. */
const MAX_IMPLAUSIBLE_WARNINGS = 16;

/** Reads a JSON body into a payload (`parsePollenDocument`…); throws `MALFORMED_RESPONSE`. */
export type DocumentParser<TPayload extends ParsedPayload<unknown>> = (
  json: unknown,
  context: ParseContext,
) => TPayload;

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
  const { origin, basePath } = checkOptions(options);
  const { apiKey, connectTimeoutMs, requestTimeoutMs, signal } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const log = options.logger?.child({ component: 'service-client' });
  const onCall = options.onCall;
  /** The implausible `Retry-After` values already warned about: each is said once. */
  const implausibleSeen = new Set<string>();
  const noteImplausibleRetryAfter = (value: string, endpointPath: string, status: number) => {
    if (implausibleSeen.has(value) || implausibleSeen.size >= MAX_IMPLAUSIBLE_WARNINGS) return;
    implausibleSeen.add(value);
    log?.warn(
      { endpoint: endpointPath, status, retryAfter: value },
      'the service sent a Retry-After of more than a day: not believed, the shared backoff applies instead (said once per value)',
    );
  };
  // Required here, when a client is created, not imported at the top: undici is a large package
  // that the commands which never call the service (`status`, `locations list`) would load at
  // start-up only because the app that builds this client imports this module. Its CommonJS
  // entry is the module `import 'undici'` loads too: one copy in the process.
  const { Pool } = createRequire(import.meta.url)('undici') as typeof Undici;
  const pool = new Pool(origin, {
    connections: options.connections,
    connectTimeout: connectTimeoutMs,
    headersTimeout: requestTimeoutMs,
    bodyTimeout: requestTimeoutMs,
  });
  const untrack = trackResource('service client', origin, () => pool.close());
  const headers: Record<string, string> = {
    'x-api-key': apiKey,
    accept: 'application/json',
  };
  if (options.language !== undefined && options.language !== '') {
    headers['accept-language'] = options.language;
  }
  Object.freeze(headers);
  const baseUrl = origin + basePath;
  let closing: Promise<void> | undefined;

  async function call<TPayload extends ParsedPayload<unknown>>(
    endpoint: Endpoint,
    query: unknown,
    parseDocument: DocumentParser<TPayload>,
  ): Promise<TPayload> {
    try {
      return (await send(endpoint, query, parseDocument, false)).payload;
    } catch (error) {
      throw redactServiceError(error, apiKey);
    }
  }

  async function callHistory<TPayload extends ParsedPayload<unknown>>(
    endpoint: Endpoint,
    query: unknown,
    parseDocument: DocumentParser<TPayload>,
  ): Promise<HistoryPayload<TPayload>> {
    try {
      const { payload, complete } = await send(endpoint, query, parseDocument, true);
      return { ...payload, complete };
    } catch (error) {
      throw redactServiceError(error, apiKey);
    }
  }

  /**
   * One request. A `206` answer is returned with `complete: false` when `keepPartial` (history:
   * the records received are worth landing), and is `PARTIAL` otherwise.
   */
  async function send<TPayload extends ParsedPayload<unknown>>(
    endpoint: Endpoint,
    query: unknown,
    parseDocument: DocumentParser<TPayload>,
    keepPartial: boolean,
  ): Promise<{ payload: TPayload; complete: boolean }> {
    const queryString = encodeQuery(endpoint, query);
    if (closing !== undefined) {
      throw new ServiceError(
        'NETWORK',
        `the service client is closed; cannot call ${endpoint.path}: create a new client.`,
        { endpoint: endpoint.path, retryable: false },
      );
    }
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new RequestDeadlineExceeded('request deadline exceeded')),
      requestTimeoutMs,
    );
    const abandon = () => controller.abort(new CallAborted('its caller aborted it: a shutdown'));
    const abandonedBefore = signal?.aborted === true;
    if (abandonedBefore) abandon();
    signal?.addEventListener('abort', abandon, { once: true });
    let status: number;
    let answered: number | undefined;
    let responseHeaders: Record<string, string | string[] | undefined>;
    let body: string;
    try {
      const response = await pool.request({
        path: `${basePath}${endpoint.path}?${queryString}`,
        method: 'GET',
        headers,
        signal: controller.signal,
      });
      status = response.statusCode;
      answered = status;
      responseHeaders = response.headers;
      body = scrubSecret(
        await readCappedBody(response.body, response.headers, maxBodyBytes),
        apiKey,
      );
    } catch (thrown) {
      // A body cut short or too large still had its status: the service answered it. A call
      // abandoned before it started never reached the wire.
      if (answered !== undefined) onCall?.(endpoint.name, String(answered));
      else if (!abandonedBefore) onCall?.(endpoint.name, 'error');
      const error = classifyTransportError(thrown, {
        endpoint: endpoint.path,
        baseUrl,
        connectTimeoutMs,
        requestTimeoutMs,
      });
      log?.debug(
        { endpoint: endpoint.path, query: queryString, code: error.code, ms: elapsed(started) },
        'service call failed',
      );
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abandon);
    }

    onCall?.(endpoint.name, String(status));
    const context: ParseContext = { rawBody: body, endpoint: endpoint.path, httpStatus: status };
    let json: unknown;
    if (status >= 200 && status < 300) {
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined; // a truncated 206 is salvaged below; any other 2xx is malformed
      }
    }
    const failure = classifyResponse({
      endpoint: endpoint.path,
      status,
      headers: responseHeaders,
      body,
      json,
    });
    if (failure?.code === 'PARTIAL' && keepPartial) {
      // parsePartialBody's empty payload has `never` records: assignable to any payload.
      const payload = parsePartialBody(json, context, parseDocument) as TPayload;
      log?.debug(
        {
          endpoint: endpoint.path,
          query: queryString,
          status,
          partialRecords: payload.records.length,
          ms: elapsed(started),
        },
        'service call answered in part',
      );
      return { payload, complete: false };
    }
    if (failure !== undefined) {
      if (failure.retryAfterImplausible !== undefined) {
        noteImplausibleRetryAfter(failure.retryAfterImplausible, endpoint.path, status);
      }
      log?.debug(
        {
          endpoint: endpoint.path,
          query: queryString,
          status,
          code: failure.code,
          ms: elapsed(started),
        },
        'service call failed',
      );
      throw new ServiceError(failure.code, failure.message, {
        endpoint: failure.endpoint,
        httpStatus: failure.httpStatus,
        retryable: failure.retryable,
        retryAfterMs: failure.retryAfterMs,
        details: failure.details,
      });
    }

    const payload = parseDocument(json !== undefined ? json : parseJsonBody(context), context);
    if (payload.rejected.length > 0) {
      log?.warn(
        {
          endpoint: endpoint.path,
          query: queryString,
          rejected: payload.rejected.length,
          records: payload.records.length,
          firstReason: payload.rejected[0]?.reason,
        },
        'service payload has records that do not fit; they go to quarantine',
      );
    }
    log?.debug(
      {
        endpoint: endpoint.path,
        query: queryString,
        status,
        records: payload.records.length,
        bytes: body.length,
        ms: elapsed(started),
      },
      'service call',
    );
    return { payload, complete: true };
  }

  const E = ENDPOINTS;
  return {
    pollenLatestByLatLng: (q) => call(E.pollenLatestByLatLng, q, parsePollenDocument),
    pollenLatestByPlace: (q) => call(E.pollenLatestByPlace, q, parsePollenDocument),
    pollenHistoryByLatLng: (q) => callHistory(E.pollenHistoryByLatLng, q, parsePollenDocument),
    pollenHistoryByPlace: (q) => callHistory(E.pollenHistoryByPlace, q, parsePollenDocument),
    pollenForecastByLatLng: (q) => call(E.pollenForecastByLatLng, q, parsePollenDocument),
    pollenForecastByPlace: (q) => call(E.pollenForecastByPlace, q, parsePollenDocument),
    pollenForecast120hByLatLng: (q) => call(E.pollenForecast120hByLatLng, q, parsePollenDocument),
    pollenForecast120hByPlace: (q) => call(E.pollenForecast120hByPlace, q, parsePollenDocument),
    weatherLatest: (q) => call(E.weatherLatest, q, parseWeatherDocument),
    weatherHistory: (q) => callHistory(E.weatherHistory, q, parseWeatherDocument),
    weatherForecast: (q) => call(E.weatherForecast, q, parseWeatherDocument),
    geocode: (q) => call(E.geocode, q, parseGeocodeDocument),
    reverseGeocode: (q) => call(E.reverseGeocode, q, parseGeocodeDocument),
    request: (endpoint, q, parseDocument) => call(endpoint, q, parseDocument),
    requestHistory: (endpoint, q, parseDocument) => callHistory(endpoint, q, parseDocument),
    close: () => (closing ??= pool.close().finally(untrack)),
  };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/** Validates the options, listing every problem at once; never quotes the key. */
function checkOptions(options: ServiceClientOptions): { origin: string; basePath: string } {
  const problems: string[] = [];
  const key: unknown = options.apiKey;
  if (typeof key !== 'string' || key.trim() === '') {
    problems.push('the API key is missing: set ENVDATA_API_KEY');
  } else if ([...key].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) {
    problems.push('the API key contains control characters: check ENVDATA_API_KEY');
  }
  const limits = ['connections', 'connectTimeoutMs', 'requestTimeoutMs', 'maxBodyBytes'] as const;
  for (const name of limits) {
    const value = options[name] ?? 1; // maxBodyBytes is optional
    if (!Number.isSafeInteger(value) || value < 1) {
      problems.push(`${name} must be a positive integer, got ${String(value)}`);
    }
  }
  let origin = '';
  let basePath = '';
  try {
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      problems.push(`ENVDATA_BASE_URL must be http or https, got ${url.protocol}`);
    } else if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
      problems.push('ENVDATA_BASE_URL must have no credentials, query or fragment');
    }
    origin = url.origin;
    basePath = url.pathname.replace(/\/+$/, '');
  } catch {
    problems.push(`ENVDATA_BASE_URL is not a URL: ${JSON.stringify(options.baseUrl)}`);
  }
  if (problems.length > 0) {
    throw new EnvdataError(
      'CONFIG_INVALID',
      `cannot create the service client: ${problems.join('; ')}`,
      { details: { problems } },
    );
  }
  return { origin, basePath };
}
