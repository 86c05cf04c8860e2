import { afterAll, describe, expect, it } from 'vitest';
import { encodeQuery } from '../../src/service/encode-query.js';
import { ENDPOINTS, type EndpointName } from '../../src/service/endpoints.js';
import { createServiceClient } from '../../src/service/service-client.js';
import { ServiceError } from '../../src/service/service-error.js';

// Port 9 (discard) on loopback: any request that did go out would fail as NETWORK, never as
// INVALID_QUERY, so an INVALID_QUERY proves the rules ran first. The contract test proves
// "zero requests" with the simulator's counters.
const client = createServiceClient({
  baseUrl: 'http://127.0.0.1:9',
  apiKey: 'query-rules-test-key',
  connections: 1,
  connectTimeoutMs: 1_000,
  requestTimeoutMs: 1_000,
});
afterAll(() => client.close());

const RANGE = { from: '2024-11-01 00:00:00', to: '2024-11-03 00:00:00' } as const;

async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

function encodeError(name: EndpointName, query: unknown): ServiceError {
  try {
    encodeQuery(ENDPOINTS[name], query);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected INVALID_QUERY');
}

describe('service client query rules', () => {
  it.each([
    [
      'lat above 90',
      { lat: 90.0001, lng: 0 },
      /lat must be a finite number in \[-90, 90\], got 90.0001/,
    ],
    ['lat below -90', { lat: -91, lng: 0 }, /lat must be/],
    ['lng above 180', { lat: 0, lng: 180.5 }, /lng must be a finite number in \[-180, 180\]/],
    ['lng below -180', { lat: 0, lng: -181 }, /lng must be/],
    ['NaN', { lat: Number.NaN, lng: 0 }, /lat must be.*got NaN/],
    ['Infinity', { lat: 0, lng: Number.POSITIVE_INFINITY }, /lng must be.*got Infinity/],
    ['a numeric string', { lat: '41.3', lng: 2 }, /lat must be.*got "41.3"/],
    ['a missing lng', { lat: 41.3 }, /lng must be.*got nothing/],
  ])('refuses %s before any request, as INVALID_QUERY, not retryable', async (_, query, reason) => {
    const error = await rejection(client.pollenLatestByLatLng(query as never));
    expect(error.code).toBe('INVALID_QUERY');
    expect(error.retryable).toBe(false);
    expect(error.httpStatus).toBeUndefined();
    expect(error.endpoint).toBe('/latest/pollen/by-lat-lng');
    expect(error.message).toMatch(reason);
    expect(error.message).toMatch(/Nothing was sent/);
  });

  it.each([
    ['an empty place', ''],
    ['a blank place', '   '],
    ['a place that is not a string', 42],
  ])('refuses %s', async (_, place) => {
    const error = await rejection(client.geocode({ place } as never));
    expect(error.code).toBe('INVALID_QUERY');
    expect(error.message).toMatch(/place must be a non-blank string/);
  });

  it.each([
    ['from after to', { from: '2024-11-03 00:00:00', to: '2024-11-01 00:00:00' }, /must be before/],
    [
      'from equal to to',
      { from: '2024-11-01 00:00:00', to: '2024-11-01 00:00:00' },
      /must be before/,
    ],
    ['an ISO string', { from: '2024-11-01T00:00:00Z', to: RANGE.to }, /from must be a Date or/],
    ['a date that does not exist', { from: '2024-02-30 00:00:00', to: RANGE.to }, /from must be/],
    ['hour 24', { from: RANGE.from, to: '2024-11-03 24:00:00' }, /to must be/],
    ['an invalid Date', { from: new Date('nope'), to: RANGE.to }, /from is an invalid Date/],
    [
      'a Date with milliseconds',
      { from: new Date(1_730_419_200_500), to: RANGE.to },
      /whole second/,
    ],
    ['a missing to', { from: RANGE.from }, /to must be a Date/],
    ['an epoch number', { from: 1_730_419_200, to: RANGE.to }, /from must be a Date/],
  ])('refuses a history query with %s', async (_, range, reason) => {
    const error = await rejection(
      client.pollenHistoryByLatLng({ lat: 41.3874, lng: 2.1686, ...range } as never),
    );
    expect(error.code).toBe('INVALID_QUERY');
    expect(error.message).toMatch(reason);
  });

  it('refuses units on a pollen endpoint and speciesRisk on a weather one, also at compile time', async () => {
    const pollen = await rejection(
      // @ts-expect-error units is accepted by weather endpoints only
      client.pollenForecastByLatLng({ lat: 1, lng: 2, units: 'si' }),
    );
    expect(pollen.code).toBe('INVALID_QUERY');
    expect(pollen.message).toMatch(/units is not accepted by \/forecast\/pollen\/by-lat-lng/);

    const weather = await rejection(
      // @ts-expect-error speciesRisk is accepted by pollen endpoints only
      client.weatherForecast({ lat: 1, lng: 2, speciesRisk: true }),
    );
    expect(weather.message).toMatch(
      /speciesRisk is not accepted by \/weather\/forecast\/by-lat-lng/,
    );

    const geocode = await rejection(
      // @ts-expect-error geocoding takes neither option
      client.reverseGeocode({ lat: 1, lng: 2, speciesRisk: false }),
    );
    expect(geocode.code).toBe('INVALID_QUERY');
  });

  it('refuses a range on a non-historical endpoint and a place on a coordinate endpoint', async () => {
    const latest = await rejection(
      // @ts-expect-error latest takes no range
      client.weatherLatest({ lat: 1, lng: 2, ...RANGE }),
    );
    expect(latest.message).toMatch(/from is not accepted/);
    const place = await rejection(
      // @ts-expect-error a coordinate endpoint takes no place
      client.pollenLatestByLatLng({ lat: 1, lng: 2, place: 'Paris' }),
    );
    expect(place.message).toMatch(/place is not accepted/);
  });

  it('refuses a mistyped option name instead of dropping it', () => {
    const error = encodeError('pollenLatestByPlace', { place: 'Paris', specieRisk: true });
    expect(error.message).toMatch(/specieRisk is not accepted/);
  });

  it('refuses units other than si and a non-boolean speciesRisk', () => {
    expect(encodeError('weatherLatest', { lat: 1, lng: 2, units: 'us' }).message).toMatch(
      /units must be 'si', got "us"/,
    );
    expect(encodeError('pollenLatestByPlace', { place: 'x', speciesRisk: 'True' }).message).toMatch(
      /speciesRisk must be a boolean/,
    );
  });

  it('lists every problem of a query at once', () => {
    const error = encodeError('weatherHistory', { lat: 100, lng: 200, from: 'x', to: 'y' });
    expect(error.details.problems).toHaveLength(4);
  });

  it.each([null, 'lat=1', [1, 2]])('refuses a query that is not an object (%j)', (query) => {
    expect(encodeError('weatherLatest', query).message).toMatch(/must be an object/);
  });
});

describe('encodeQuery', () => {
  it('rounds coordinates to 4 decimals on the wire', () => {
    expect(encodeQuery(ENDPOINTS.reverseGeocode, { lat: 41.387_449_9, lng: -2.168_650_1 })).toBe(
      'lat=41.3874&lng=-2.1687',
    );
    expect(encodeQuery(ENDPOINTS.reverseGeocode, { lat: -0.000_01, lng: 180 })).toBe(
      'lat=0&lng=180',
    );
  });

  it('sends from/to as URL-encoded UTC `YYYY-MM-DD hh:mm:ss`, from Dates or strings alike', () => {
    const expected =
      'lat=52.52&lng=13.405&from=2024-11-01%2000%3A00%3A00&to=2024-11-03%2000%3A00%3A00&units=si';
    expect(encodeQuery(ENDPOINTS.weatherHistory, { lat: 52.52, lng: 13.405, ...RANGE })).toBe(
      expected,
    );
    expect(
      encodeQuery(ENDPOINTS.weatherHistory, {
        lat: 52.52,
        lng: 13.405,
        from: new Date('2024-11-01T00:00:00Z'),
        to: new Date('2024-11-03T00:00:00Z'),
      }),
    ).toBe(expected);
  });

  it('always sends units=si on weather endpoints, never on others', () => {
    expect(encodeQuery(ENDPOINTS.weatherLatest, { lat: 1, lng: 2 })).toBe('lat=1&lng=2&units=si');
    expect(encodeQuery(ENDPOINTS.weatherForecast, { lat: 1, lng: 2, units: 'si' })).toBe(
      'lat=1&lng=2&units=si',
    );
    expect(encodeQuery(ENDPOINTS.pollenLatestByLatLng, { lat: 1, lng: 2 })).toBe('lat=1&lng=2');
  });

  it('sends speciesRisk on pollen endpoints only when given', () => {
    expect(
      encodeQuery(ENDPOINTS.pollenForecast120hByPlace, { place: 'Paris', speciesRisk: true }),
    ).toBe('place=Paris&speciesRisk=true');
    expect(encodeQuery(ENDPOINTS.pollenForecast120hByPlace, { place: 'Paris' })).toBe(
      'place=Paris',
    );
  });

  it('trims and URL-encodes the place', () => {
    expect(encodeQuery(ENDPOINTS.geocode, { place: '  São Paulo & Co/Brasil ' })).toBe(
      'place=S%C3%A3o%20Paulo%20%26%20Co%2FBrasil',
    );
  });

  it('treats an option explicitly set to undefined as absent', () => {
    expect(encodeQuery(ENDPOINTS.pollenLatestByPlace, { place: 'x', speciesRisk: undefined })).toBe(
      'place=x',
    );
  });
});
