import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/create-logger.js';
import { captureLogger } from '../harness/capture-logger.js';
import { endpoint, UNITS_SI } from '../../src/service/endpoints.js';
import type {
  GeocodeMatch,
  LatestRecord,
  ParsedPayload,
  PollenRecord,
  WeatherRecord,
} from '../../src/service/models.js';
import { createServiceClient, type ServiceClient } from '../../src/service/service-client.js';
import type { ServiceClientOptions } from '../../src/service/service-client-options.js';
import { parseWeatherDocument } from '../../src/service/parse-weather-body.js';
import { ServiceError } from '../../src/service/service-error.js';
import { API_PRODUCTS } from '../../src/simulator/simulator-endpoints.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/start-simulator.js';

// The client against the simulator over real HTTP: every endpoint in current and legacy shapes,
// every fault and limit mapped to its code, query rules that send nothing, and no key anywhere.

const SECRET_KEY = 'contract-secret-key-9f1c2b7e';
const POLLEN_ONLY_KEY = 'pollen-only-secret-5e6f7a8b';
const WRONG_KEY = 'wrong-secret-key-41d8a0c3';
const SECRETS = [SECRET_KEY, POLLEN_ONLY_KEY, WRONG_KEY];

const NOW = '2025-05-01T12:00:00.000Z';
const BARCELONA = { lat: 41.3874, lng: 2.1686 } as const;
const SAO_PAULO = { lat: -23.5505, lng: -46.6333 } as const;
const RANGE = { from: '2025-04-28 00:00:00', to: '2025-04-30 00:00:00' } as const;
const HOUR = 3_600_000;

const logLines: string[] = [];
const logger = createLogger({
  level: 'trace',
  format: 'json',
  destination: { write: (line: string) => void logLines.push(line) },
});

let sim: RunningSimulator;
const clients: ServiceClient[] = [];

function client(overrides: Partial<ServiceClientOptions> = {}): ServiceClient {
  const created = createServiceClient({
    baseUrl: sim.url,
    apiKey: SECRET_KEY,
    language: 'en',
    connections: 4,
    connectTimeoutMs: 2_000,
    requestTimeoutMs: 5_000,
    logger,
    ...overrides,
  });
  clients.push(created);
  return created;
}

let api: ServiceClient;

beforeAll(async () => {
  sim = await startSimulator({
    now: NOW,
    keys: { [SECRET_KEY]: API_PRODUCTS, [POLLEN_ONLY_KEY]: ['pollen'] },
  });
  api = client();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sim.close();
  // The secrecy checks below are only worth something if the client did log.
  expect(logLines.length).toBeGreaterThan(50);
});

beforeEach(() => {
  sim.clearFaults();
  sim.resetLimits();
  sim.setOptions({ legacyShapes: false, rateLimit: null, dailyQuota: null, maxRangeHours: 48 });
  sim.resetStats();
});

afterEach(() => {
  for (const line of logLines) expectNoSecret(line);
});

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

/** The call's ServiceError, checked to carry no key in message, details, cause or stack. */
async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    expectNoSecret(inspect(error, { depth: Infinity, showHidden: true }));
    expectNoSecret(JSON.stringify(error));
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** Records stamped hour by hour from `first` (a latest reading may have come without a stamp). */
function hourly(
  payload: ParsedPayload<{ at: Date | undefined }>,
  first: string,
  stepMs: number,
): void {
  const start = Date.parse(first);
  expect(payload.records.map((r) => r.at?.getTime())).toEqual(
    payload.records.map((_, i) => start + i * stepMs),
  );
}

type Shape = 'current' | 'legacy';

interface EndpointCase {
  readonly id: string;
  readonly check: (c: ServiceClient, shape: Shape) => Promise<ParsedPayload<object>>;
}

/** Calls an endpoint and checks its payload; erases the record type so cases fit one table. */
function endpointCase<TRecord extends object>(
  id: string,
  run: (c: ServiceClient) => Promise<ParsedPayload<TRecord>>,
  check: (payload: ParsedPayload<TRecord>, shape: Shape) => void,
): EndpointCase {
  return {
    id,
    check: async (c, shape) => {
      const payload = await run(c);
      check(payload, shape);
      return payload;
    },
  };
}

const pollenChecks =
  (count: number, first: string, stepMs: number) =>
  (payload: ParsedPayload<LatestRecord<PollenRecord>>, shape: Shape): void => {
    const { records } = payload;
    expect(records).toHaveLength(count);
    hourly(payload, first, stepMs);
    for (const record of records) {
      expect(Object.keys(record.counts).sort()).toEqual(['grass', 'tree', 'weed']);
      expect(Object.keys(record.risks).sort()).toEqual(['grass', 'tree', 'weed']);
      if (shape === 'current') {
        expect(record.timezone).toBe('Europe/Madrid');
        expect(record.species?.length).toBeGreaterThan(5);
        expect(record.othersCount).toBeTypeOf('number');
      } else {
        expect(record.timezone).toBeUndefined();
        expect(record.species).toBeUndefined();
      }
    }
  };

const weatherChecks =
  (count: number, first: string) =>
  (payload: ParsedPayload<LatestRecord<WeatherRecord>>, shape: Shape): void => {
    expect(payload.records).toHaveLength(count);
    hourly(payload, first, HOUR);
    for (const record of payload.records) {
      expect(record.temperature).toBeTypeOf('number');
      expect(record.icon).toBeTypeOf('string');
      // Legacy sends percentages; the client keeps values as sent.
      if (shape === 'current') expect(record.humidity).toBeLessThanOrEqual(1);
      else expect(record.humidity).toBeGreaterThan(1);
    }
  };

const geocodeChecks =
  (label: RegExp) =>
  (payload: ParsedPayload<GeocodeMatch>): void => {
    expect(payload.records.length).toBeGreaterThan(0);
    expect(payload.records[0]?.label).toMatch(label);
    expect(payload.records[0]?.lat).toBeTypeOf('number');
  };

const ENDPOINT_CASES: readonly EndpointCase[] = [
  endpointCase(
    'pollen-latest-by-lat-lng',
    (c) => c.pollenLatestByLatLng(BARCELONA),
    pollenChecks(1, NOW, HOUR),
  ),
  endpointCase(
    'pollen-latest-by-place',
    (c) => c.pollenLatestByPlace({ place: 'Barcelona' }),
    pollenChecks(1, NOW, HOUR),
  ),
  endpointCase(
    'pollen-history-by-lat-lng',
    (c) => c.pollenHistoryByLatLng({ ...BARCELONA, ...RANGE }),
    pollenChecks(48, '2025-04-28T00:00:00Z', HOUR),
  ),
  endpointCase(
    'pollen-history-by-place',
    (c) =>
      c.pollenHistoryByPlace({
        place: 'Barcelona',
        from: new Date('2025-04-28T00:00:00Z'),
        to: new Date('2025-04-30T00:00:00Z'),
      }),
    pollenChecks(48, '2025-04-28T00:00:00Z', HOUR),
  ),
  endpointCase(
    'pollen-forecast-by-lat-lng',
    (c) => c.pollenForecastByLatLng(BARCELONA),
    pollenChecks(48, NOW, HOUR),
  ),
  endpointCase(
    'pollen-forecast-by-place',
    (c) => c.pollenForecastByPlace({ place: 'Barcelona' }),
    pollenChecks(48, NOW, HOUR),
  ),
  endpointCase(
    'pollen-forecast-120hr-by-lat-lng',
    (c) => c.pollenForecast120hByLatLng(BARCELONA),
    pollenChecks(40, NOW, 3 * HOUR),
  ),
  endpointCase(
    'pollen-forecast-120hr-by-place',
    (c) => c.pollenForecast120hByPlace({ place: 'Barcelona' }),
    pollenChecks(40, NOW, 3 * HOUR),
  ),
  endpointCase('weather-latest', (c) => c.weatherLatest(BARCELONA), weatherChecks(1, NOW)),
  endpointCase(
    'weather-history',
    (c) => c.weatherHistory({ ...BARCELONA, ...RANGE }),
    weatherChecks(48, '2025-04-28T00:00:00Z'),
  ),
  endpointCase('weather-forecast', (c) => c.weatherForecast(BARCELONA), weatherChecks(72, NOW)),
  endpointCase('geocode-by-place', (c) => c.geocode({ place: 'Berlin' }), geocodeChecks(/Berlin/)),
  endpointCase('geocode-reverse', (c) => c.reverseGeocode(BARCELONA), geocodeChecks(/Barcelona/)),
];

describe.each<Shape>(['current', 'legacy'])('every endpoint in %s shapes', (shape) => {
  it.each(ENDPOINT_CASES.map((c) => [c.id, c] as const))(
    '%s answers a parsed payload with no rejected records',
    async (id, endpointCase) => {
      sim.setOptions({ legacyShapes: shape === 'legacy' });
      const payload = await endpointCase.check(api, shape);
      expect(payload.rejected).toEqual([]);
      expect(payload.rawBody.length).toBeGreaterThan(0);
      expect(sim.stats().byEndpointStatus).toEqual({ [id]: { '200': 1 } });
    },
  );
});

describe('per-species risk over HTTP', () => {
  it.each([
    ['SpeciesRisk', 'SpeciesRisk' as const],
    ['Risks', 'Risks' as const],
  ])('is read when the service spells it %s', async (_, key) => {
    sim.setOptions({ legacyShapes: { speciesRiskKey: key } });
    const payload = await api.pollenLatestByLatLng({ ...BARCELONA, speciesRisk: true });
    const [record] = payload.records;
    const names = (record?.species ?? []).map((s) => s.name);
    expect(Object.keys(record?.speciesRisk ?? {}).sort()).toEqual([...names].sort());
    expect(names.length).toBeGreaterThan(5);
  });

  it('is absent when not asked for', async () => {
    const payload = await api.pollenLatestByLatLng(BARCELONA);
    expect(payload.records[0]?.speciesRisk).toBeUndefined();
  });
});

describe('faults map to codes', () => {
  const ID = 'pollen-history-by-lat-lng';
  const history = (c: ServiceClient = api) => c.pollenHistoryByLatLng({ ...BARCELONA, ...RANGE });

  it('a 5xx JSON error is SERVER_ERROR, retryable; the script is spent after one call', async () => {
    sim.addFaultScripts([{ endpoint: ID, kind: 'error', status: 503, count: 1 }]);
    const error = await failure(history());
    expect(error).toMatchObject({ code: 'SERVER_ERROR', retryable: true, httpStatus: 503 });
    expect(error.endpoint).toBe('/history/pollen/by-lat-lng');
    expect((await history()).records).toHaveLength(48);
  });

  it('a plain-text 502 is SERVER_ERROR with the text as the upstream message', async () => {
    sim.addFaultScripts([{ endpoint: 'weather-history', kind: 'text', count: 1 }]);
    const error = await failure(api.weatherHistory({ ...BARCELONA, ...RANGE }));
    expect(error).toMatchObject({ code: 'SERVER_ERROR', httpStatus: 502 });
    expect(error.details.upstreamMessage).toBe('502 Bad Gateway');
  });

  it('a hang is TIMEOUT, retryable, within the request timeout', async () => {
    const impatient = client({ requestTimeoutMs: 300 });
    sim.addFaultScripts([{ endpoint: ID, kind: 'hang', count: 1 }]);
    const started = Date.now();
    const error = await failure(history(impatient));
    expect(error).toMatchObject({ code: 'TIMEOUT', retryable: true });
    expect(error.httpStatus).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a connection reset is NETWORK, retryable, and is not retried by the client', async () => {
    sim.addFaultScripts([{ endpoint: ID, kind: 'reset', count: 1 }]);
    const error = await failure(history());
    expect(error).toMatchObject({ code: 'NETWORK', retryable: true });
    expect(sim.stats().byEndpointStatus[ID]).toEqual({ reset: 1 });
  });

  it('a body that is not JSON is MALFORMED_RESPONSE carrying the body', async () => {
    sim.addFaultScripts([{ endpoint: ID, kind: 'malformed', count: 1 }]);
    const error = await failure(history());
    expect(error).toMatchObject({ code: 'MALFORMED_RESPONSE', httpStatus: 200 });
    expect(String(error.details.body)).toMatch(/^\{message"/);
  });

  it('a truncated 206 on history is an incomplete answer holding the complete records received', async () => {
    sim.addFaultScripts([{ endpoint: ID, kind: 'truncated', count: 1 }]);
    const partial = await history();
    expect(partial.complete).toBe(false);
    expect(partial.records.length).toBeGreaterThan(10);
    expect(partial.records.length).toBeLessThan(48);
    expect(partial.rejected).toEqual([]);
    hourly(partial, '2025-04-28T00:00:00Z', HOUR);
    const whole = await history();
    expect(whole.complete).toBe(true);
    expect(whole.records).toHaveLength(48);
  });

  it('a truncated 206 on weather latest (not a history endpoint) is PARTIAL, retryable', async () => {
    sim.addFaultScripts([{ endpoint: 'weather-latest', kind: 'truncated', count: 1 }]);
    const error = await failure(api.weatherLatest(BARCELONA));
    expect(error).toMatchObject({ code: 'PARTIAL', retryable: true, httpStatus: 206 });
  });

  it('latency below the timeout still answers', async () => {
    sim.addFaultScripts([{ endpoint: ID, kind: 'latency', latencyMs: 50, count: 1 }]);
    expect((await history()).records).toHaveLength(48);
  });

  it('a fault rate of 1 fails every call', async () => {
    sim.setFaults({ rules: [{ endpoint: 'weather', kind: 'error', status: 500, rate: 1 }] });
    const errors = await Promise.all([1, 2, 3].map(() => failure(api.weatherLatest(BARCELONA))));
    expect(errors.map((e) => e.code)).toEqual(['SERVER_ERROR', 'SERVER_ERROR', 'SERVER_ERROR']);
  });
});

describe('keys, entitlements, ranges and limits map to codes', () => {
  it('an unknown key is UNAUTHORIZED and says to check ENVDATA_API_KEY', async () => {
    const error = await failure(client({ apiKey: WRONG_KEY }).weatherLatest(BARCELONA));
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', retryable: false, httpStatus: 401 });
    expect(error.message).toMatch(/check ENVDATA_API_KEY/);
  });

  it('a key without the product is FORBIDDEN, naming the endpoint', async () => {
    const pollenOnly = client({ apiKey: POLLEN_ONLY_KEY });
    expect((await pollenOnly.pollenLatestByLatLng(BARCELONA)).records).toHaveLength(1);
    const error = await failure(pollenOnly.weatherLatest(BARCELONA));
    expect(error).toMatchObject({ code: 'FORBIDDEN', retryable: false, httpStatus: 403 });
    expect(error.message).toContain('/weather/latest/by-lat-lng');
  });

  it('a range longer than the plan allows is RANGE_TOO_LONG', async () => {
    sim.setOptions({ maxRangeHours: 24 });
    const error = await failure(api.pollenHistoryByLatLng({ ...BARCELONA, ...RANGE }));
    expect(error).toMatchObject({ code: 'RANGE_TOO_LONG', retryable: false, httpStatus: 400 });
    const shorter = await api.pollenHistoryByLatLng({
      ...BARCELONA,
      from: RANGE.from,
      to: '2025-04-29 00:00:00',
    });
    expect(shorter.records).toHaveLength(24);
  });

  it('429 with Retry-After is RATE_LIMITED with the wait', async () => {
    sim.setOptions({ rateLimit: { max: 1, durationMs: 60_000, retryAfter: 'always' } });
    await api.weatherLatest(BARCELONA);
    const error = await failure(api.weatherLatest(BARCELONA));
    expect(error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, httpStatus: 429 });
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it.each([
    ['an absurd count of seconds', '999999999'],
    ['a far-future HTTP-date', 'Fri, 01 Jan 2100 00:00:00 GMT'],
  ])(
    '429 whose Retry-After asks for more than a day (%s) is RATE_LIMITED with no wait, said once',
    async (_what, header) => {
      const captured = captureLogger();
      const logged = client({ logger: captured.logger });
      sim.setOptions({
        rateLimit: { max: 1, durationMs: 60_000, retryAfterFormat: { header } },
      });
      await logged.weatherLatest(BARCELONA);
      for (let i = 0; i < 3; i += 1) {
        const error = await failure(logged.weatherLatest(BARCELONA));
        expect(error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, httpStatus: 429 });
        expect(error.retryAfterMs).toBeUndefined();
        expect(error.message).toContain(`Retry-After "${header}" asks for more than a day`);
      }
      const warnings = captured.lines.filter((l) => l.includes('Retry-After of more than a day'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({ retryAfter: header, status: 429 });
    },
  );

  it('429 with Retry-After in milliseconds (a proxy) is read as seconds: a wait within a day', async () => {
    sim.setOptions({
      rateLimit: { max: 1, durationMs: 60_000, retryAfterFormat: 'milliseconds' },
    });
    await api.weatherLatest(BARCELONA);
    const error = await failure(api.weatherLatest(BARCELONA));
    // The service meant at most 60 s; the header says up to 60,000 s. Believed here (within a
    // day): ENVDATA_MAX_PAUSE bounds what the workers make of it.
    expect(error.retryAfterMs).toBeGreaterThan(60_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(60_000_000);
  });

  it('429 without Retry-After is RATE_LIMITED with no wait', async () => {
    sim.setOptions({ rateLimit: { max: 1, durationMs: 60_000, retryAfter: 'never' } });
    await api.weatherLatest(BARCELONA);
    const error = await failure(api.weatherLatest(BARCELONA));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retryAfterMs).toBeUndefined();
  });

  it('a daily quota answered 422 is QUOTA_EXCEEDED, retryable', async () => {
    sim.setOptions({ dailyQuota: { max: 1, status: 422 } });
    await api.geocode({ place: 'Berlin' });
    const error = await failure(api.geocode({ place: 'Berlin' }));
    expect(error).toMatchObject({ code: 'QUOTA_EXCEEDED', retryable: true, httpStatus: 422 });
  });

  it.each([
    ['pollen outside coverage', (c: ServiceClient) => c.pollenLatestByLatLng(SAO_PAULO)],
    [
      'pollen history before 2016',
      (c: ServiceClient) =>
        c.pollenHistoryByLatLng({
          ...BARCELONA,
          from: '2015-06-01 00:00:00',
          to: '2015-06-03 00:00:00',
        }),
    ],
    ['a place nobody knows', (c: ServiceClient) => c.geocode({ place: 'Qxzzyv Nowhereton' })],
  ])('"Data not available!" for %s is NO_DATA, not retryable', async (_, run) => {
    const error = await failure(run(api));
    expect(error).toMatchObject({ code: 'NO_DATA', retryable: false, httpStatus: 200 });
  });

  it('a place the service cannot find for pollen is NOT_COVERED (404)', async () => {
    const error = await failure(api.pollenLatestByPlace({ place: 'Qxzzyv Nowhereton' }));
    expect(error).toMatchObject({ code: 'NOT_COVERED', retryable: false, httpStatus: 404 });
  });
});

describe('query rules over HTTP', () => {
  it('a rejected query makes zero requests', async () => {
    const calls: Promise<unknown>[] = [
      api.pollenLatestByLatLng({ lat: 91, lng: 0 }),
      api.pollenHistoryByPlace({ place: ' ', ...RANGE }),
      api.weatherHistory({ ...BARCELONA, from: RANGE.to, to: RANGE.from }),
      api.geocode({ place: '' }),
      api.reverseGeocode({ lat: 0, lng: Number.NaN }),
      // @ts-expect-error units is weather-only
      api.pollenForecastByPlace({ place: 'Paris', units: 'si' }),
      // @ts-expect-error speciesRisk is pollen-only
      api.weatherForecast({ ...BARCELONA, speciesRisk: true }),
    ];
    const errors = await Promise.all(calls.map((call) => failure(call)));
    expect(errors.map((e) => e.code)).toEqual(Array(calls.length).fill('INVALID_QUERY'));
    expect(sim.stats().total).toBe(0);
  });

  it('coordinates are rounded to 4 decimals on the wire (same simulator site as the rounded point)', async () => {
    const precise = await api.pollenLatestByLatLng({ lat: 41.387_449_9, lng: 2.168_649_9 });
    expect(precise.lat).toBe(41.3874);
    expect(precise.lng).toBe(2.1686);
  });
});

describe('the connection pool', () => {
  it('serves many concurrent calls over a bounded number of connections', async () => {
    const small = client({ connections: 2 });
    const payloads = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        small.weatherLatest({ lat: 41 + i / 100, lng: 2 + i / 100 }),
      ),
    );
    expect(payloads.every((p) => p.records.length === 1)).toBe(true);
    expect(sim.stats().byEndpoint['weather-latest']).toBe(40);
  });

  it('refuses calls after close, without a request', async () => {
    const closing = client();
    await closing.close();
    const error = await failure(closing.weatherLatest(BARCELONA));
    expect(error).toMatchObject({ code: 'NETWORK', retryable: false });
    expect(sim.stats().total).toBe(0);
  });
});

describe('an endpoint a dataset declares itself', () => {
  const own = endpoint('/weather/history/by-lat-lng', 'latLng', true, [UNITS_SI]);
  const query = { ...BARCELONA, ...RANGE };

  it('is called like the typed methods: same request, same payload', async () => {
    const typed = await api.weatherHistory(query);
    const generic = await api.requestHistory(own, query, parseWeatherDocument);
    expect(generic).toEqual(typed);
    expect(generic.complete).toBe(true);
    expect(sim.stats().byEndpoint).toEqual({ 'weather-history': 2 });
  });

  it('keeps its query rules and makes a trimmed 206 a value, like history methods', async () => {
    const error = await failure(api.request(own, BARCELONA, parseWeatherDocument));
    expect(error).toMatchObject({ code: 'INVALID_QUERY' });
    sim.addFaultScripts([{ endpoint: 'weather-history', kind: 'truncated', count: 1 }]);
    const partial = await api.requestHistory(own, query, parseWeatherDocument);
    expect(partial.complete).toBe(false);
    expect(partial.records.length).toBeLessThan(48);
  });
});
