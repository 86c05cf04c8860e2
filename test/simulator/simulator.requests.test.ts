import { beforeEach, describe, expect, it } from 'vitest';
import { RANGE_TOO_LONG_MESSAGE } from '../../src/simulator/render/response-text.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { historyQuery, PLACES, useTestSimulator } from './simulator-http.js';

const NOT_AVAILABLE = { message: 'Data not available!', data: [] };
type Records = { data: { time: number }[] };

const { sim, client } = useTestSimulator({
  keys: { [DEMO_API_KEY]: ['pollen', 'weather', 'geocode'], 'pollen-only-key': ['pollen'] },
});
const pollenHistory = (lat: number, lng: number, from: string, to: string) =>
  client.get(`/history/pollen/by-lat-lng?${historyQuery(lat, lng, from, to)}`);
const weatherHistory = (lat: number, lng: number, from: string, to: string) =>
  client.get(`/weather/history/by-lat-lng?${historyQuery(lat, lng, from, to)}&units=si`);

beforeEach(() => {
  sim().setOptions({ maxRangeHours: 48 });
});

describe('coverage', () => {
  it('has no pollen before 2016-01-01 and starts exactly then', async () => {
    const before = await pollenHistory(
      52.52,
      13.405,
      '2015-12-31T00:00:00Z',
      '2016-01-01T00:00:00Z',
    );
    expect(before.status).toBe(200);
    expect(before.json()).toEqual(NOT_AVAILABLE);
    const across = await pollenHistory(
      52.52,
      13.405,
      '2015-12-31T12:00:00Z',
      '2016-01-01T12:00:00Z',
    );
    const records = across.json<Records>().data;
    expect(records).toHaveLength(12);
    expect(records[0]!.time).toBe(Date.UTC(2016, 0, 1) / 1000);
  });

  it('has no weather before 1990-01-01 and starts exactly then', async () => {
    const before = await weatherHistory(
      52.52,
      13.405,
      '1989-12-30T00:00:00Z',
      '1989-12-31T00:00:00Z',
    );
    expect(before.json()).toEqual(NOT_AVAILABLE);
    const first = await weatherHistory(
      52.52,
      13.405,
      '1989-12-31T23:00:00Z',
      '1990-01-01T02:00:00Z',
    );
    const history = first.json<{ data: { history: { time: number }[] } }>().data.history;
    expect(history.map((r) => r.time)).toEqual([0, 1].map((h) => Date.UTC(1990, 0, 1, h) / 1000));
  });

  it('serves history up to the last complete hour before now, nothing after', async () => {
    const today = await pollenHistory(
      52.52,
      13.405,
      '2024-07-01T00:00:00Z',
      '2024-07-02T00:00:00Z',
    );
    const times = today.json<Records>().data.map((r) => r.time);
    expect(times).toHaveLength(12);
    expect(times.at(-1)).toBe(Date.UTC(2024, 6, 1, 11) / 1000);
    const future = await weatherHistory(
      52.52,
      13.405,
      '2024-07-01T12:00:00Z',
      '2024-07-02T12:00:00Z',
    );
    expect(future.json()).toEqual(NOT_AVAILABLE);
  });

  it('has no pollen for South America (on request) but weather there', async () => {
    const { lat, lng } = PLACES.saoPaulo;
    for (const path of [
      `/latest/pollen/by-lat-lng?lat=${lat}&lng=${lng}`,
      `/forecast/v2/pollen/120hr/by-lat-lng?lat=${lat}&lng=${lng}`,
      `/history/pollen/by-lat-lng?${historyQuery(lat, lng, '2024-01-01T00:00:00Z', '2024-01-02T00:00:00Z')}`,
    ]) {
      const res = await client.get(path);
      expect(res.status).toBe(200);
      expect(res.json()).toEqual(NOT_AVAILABLE);
    }
    const weather = await client.get(`/weather/latest/by-lat-lng?lat=${lat}&lng=${lng}&units=si`);
    expect(weather.json()).toMatchObject({ message: 'success', data: { lat, lng } });
  });

  it('has no pollen over open sea', async () => {
    const res = await client.get('/latest/pollen/by-lat-lng?lat=0&lng=-140');
    expect(res.json()).toEqual(NOT_AVAILABLE);
  });
});

describe('history range', () => {
  it('accepts exactly 48 hours and refuses more with the recorded 400 message', async () => {
    const ok = await pollenHistory(52.52, 13.405, '2024-01-01T00:00:00Z', '2024-01-03T00:00:00Z');
    expect(ok.json<Records>().data).toHaveLength(48);
    const long = await pollenHistory(52.52, 13.405, '2024-01-01T00:00:00Z', '2024-01-03T01:00:00Z');
    expect(long.status).toBe(400);
    expect(long.json()).toEqual({ message: RANGE_TOO_LONG_MESSAGE });
    expect(RANGE_TOO_LONG_MESSAGE).toBe('Only past 2 days data available!');
    const weather = await weatherHistory(
      52.52,
      13.405,
      '2024-01-01T00:00:00Z',
      '2024-01-04T00:00:00Z',
    );
    expect(weather.status).toBe(400);
  });

  it('follows the configured maximum', async () => {
    sim().setOptions({ maxRangeHours: 24 });
    const res = await pollenHistory(52.52, 13.405, '2024-01-01T00:00:00Z', '2024-01-02T01:00:00Z');
    expect(res.status).toBe(400);
    expect(sim().options().maxRangeHours).toBe(24);
  });
});

describe('validation', () => {
  it.each([
    ['/latest/pollen/by-lat-lng?lng=13.4', 'lat is required'],
    ['/latest/pollen/by-lat-lng?lat=91&lng=13.4', 'lat must be a number between -90 and 90'],
    [
      '/weather/latest/by-lat-lng?lat=52&lng=abc&units=si',
      'lng must be a number between -180 and 180',
    ],
    [
      '/weather/latest/by-lat-lng?lat=52&lng=0x10&units=si',
      'lng must be a number between -180 and 180',
    ],
    ['/latest/pollen/by-place?place=%20', 'place is required'],
    [
      '/history/pollen/by-lat-lng?lat=52&lng=13&from=2024-01-01&to=2024-01-02%2000:00:00',
      'from must be a date written YYYY-MM-DD hh:mm:ss',
    ],
    [
      '/history/pollen/by-lat-lng?lat=52&lng=13&from=2024-02-30%2000:00:00&to=2024-03-01%2000:00:00',
      'from must be a date written YYYY-MM-DD hh:mm:ss',
    ],
    ['/history/pollen/by-lat-lng?lat=52&lng=13&from=2024-01-01%2000:00:00', 'to is required'],
    [
      '/history/pollen/by-lat-lng?lat=52&lng=13&from=2024-01-02%2000:00:00&to=2024-01-01%2000:00:00',
      'to must be after from',
    ],
    [
      '/latest/pollen/by-lat-lng?lat=52&lng=13&speciesRisk=maybe',
      'speciesRisk must be True or False',
    ],
    [
      '/latest/pollen/by-lat-lng?lat=52&lng=13&units=si',
      'units is accepted by weather endpoints only',
    ],
    [
      '/weather/latest/by-lat-lng?lat=52&lng=13&speciesRisk=True',
      'speciesRisk is accepted by pollen endpoints only',
    ],
    [
      '/weather/latest/by-lat-lng?lat=52&lng=13&units=kelvin',
      "units must be 'si' (or omitted for imperial units)",
    ],
  ])('%s → 400 %s', async (path, message) => {
    const res = await client.get(path);
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ message });
  });

  it('answers 404 for an unknown place and an unknown path', async () => {
    const place = await client.get('/latest/pollen/by-place?place=Qxzqxzqxz');
    expect(place.status).toBe(404);
    expect(place.json<{ message: string }>().message).toContain('Qxzqxzqxz');
    const path = await client.get('/v1/pollen');
    expect(path.status).toBe(404);
  });
});

describe('keys', () => {
  it('answers 401 without a key and with an unknown key', async () => {
    const missing = await client.get('/latest/pollen/by-lat-lng?lat=52&lng=13', { key: null });
    expect(missing.status).toBe(401);
    expect(missing.json<{ message: string }>().message).toContain('x-api-key');
    const unknown = await client.get('/latest/pollen/by-lat-lng?lat=52&lng=13', {
      key: 'not-a-key',
    });
    expect(unknown.status).toBe(401);
    expect(unknown.text).not.toContain('not-a-key');
  });

  it('answers 403 for a product the key is not entitled to', async () => {
    const pollen = await client.get('/latest/pollen/by-lat-lng?lat=52&lng=13', {
      key: 'pollen-only-key',
    });
    expect(pollen.status).toBe(200);
    const weather = await client.get('/weather/latest/by-lat-lng?lat=52&lng=13&units=si', {
      key: 'pollen-only-key',
    });
    expect(weather.status).toBe(403);
    expect(weather.json<{ message: string }>().message).toContain('weather');
    const geocode = await client.get('/geocode/by-place?place=Berlin', { key: 'pollen-only-key' });
    expect(geocode.status).toBe(403);
  });

  it('checks the key before the query', async () => {
    const res = await client.get('/latest/pollen/by-lat-lng?lat=999', { key: null });
    expect(res.status).toBe(401);
  });
});
