import { beforeEach, describe, expect, it } from 'vitest';
import { POLLEN_SPECIES_BY_REGION } from '../../src/simulator/data/pollen-species-table.js';
import { pollenRiskOf } from '../../src/simulator/data/pollen-risk.js';
import { SHAPE_VARIANT_NAMES } from '../../src/simulator/render/shape-variants.js';
import { startSimulator } from '../../src/simulator/start-simulator.js';
import { POLLEN_TYPES, RISK_LEVELS, WEATHER_ICONS, type PollenType } from '../../src/types.js';
import {
  createTestClient,
  historyQuery,
  PLACES,
  TEST_NOW,
  useTestSimulator,
} from './simulator-http.js';

type Json = Record<string, unknown>;
type PollenRecordJson = {
  time?: number;
  timestamp?: string;
  timezone?: string;
  createdAt?: string;
  updatedAt?: string;
  Count: Record<string, number>;
  Risk: Record<string, string>;
  Species?: {
    Grass: Record<string, number>;
    Tree: Record<string, number>;
    Weed: Record<string, number>;
    Others: number;
  };
  SpeciesRisk?: Record<string, string>;
  Risks?: Record<string, string>;
};
type PollenBody = {
  message: string;
  lat: number | string;
  lng: number | string;
  data: PollenRecordJson[];
};

const NOW_HOUR_S = Math.floor(Date.parse(TEST_NOW) / 3_600_000) * 3600;
const WEATHER_KEYS = [
  'time',
  'temperature',
  'apparentTemperature',
  'dewPoint',
  'humidity',
  'pressure',
  'windSpeed',
  'windGust',
  'windBearing',
  'cloudCover',
  'visibility',
  'uvIndex',
  'ozone',
  'precipIntensity',
  'precipProbability',
  'precipType',
  'summary',
  'icon',
];
const TYPE_KEY: Record<PollenType, string> = {
  tree: 'tree_pollen',
  grass: 'grass_pollen',
  weed: 'weed_pollen',
};

const { sim, client } = useTestSimulator();
const berlin = `lat=${PLACES.berlin.lat}&lng=${PLACES.berlin.lng}`;

beforeEach(() => {
  sim().setOptions({ legacyShapes: false });
});

function expectPollenRecord(record: PollenRecordJson): void {
  for (const type of POLLEN_TYPES) {
    const count = record.Count[TYPE_KEY[type]];
    expect(Number.isInteger(count) && count! >= 0).toBe(true);
    expect(record.Risk[TYPE_KEY[type]]).toBe(pollenRiskOf(type, count!));
  }
}

function speciesNames(region: keyof typeof POLLEN_SPECIES_BY_REGION, type: PollenType): string[] {
  return POLLEN_SPECIES_BY_REGION[region]
    .filter((s) => s.type === type)
    .map((s) => s.name)
    .sort();
}

describe('determinism', () => {
  it('answers the same query with the same body, in this simulator and a fresh one', async () => {
    const path = `/history/pollen/by-lat-lng?${historyQuery(52.52, 13.405, '2023-05-01T00:00:00Z', '2023-05-03T00:00:00Z')}`;
    const first = await client.get(path);
    const second = await client.get(path);
    expect(first.status).toBe(200);
    expect(second.text).toBe(first.text);
    const other = await startSimulator({ now: TEST_NOW });
    const otherClient = createTestClient(() => other.url);
    try {
      expect((await otherClient.get(path)).text).toBe(first.text);
      const weather = `/weather/history/by-lat-lng?${historyQuery(52.52, 13.405, '2001-02-03T00:00:00Z', '2001-02-05T00:00:00Z')}&units=si`;
      expect((await otherClient.get(weather)).text).toBe((await client.get(weather)).text);
    } finally {
      await otherClient.close();
      await other.close();
    }
  });

  it('gives different places and hours different values', async () => {
    const range = ['2023-05-01T00:00:00Z', '2023-05-02T00:00:00Z'] as const;
    const a = await client.get(
      `/history/pollen/by-lat-lng?${historyQuery(52.52, 13.405, ...range)}`,
    );
    const b = await client.get(
      `/history/pollen/by-lat-lng?${historyQuery(52.5201, 13.405, ...range)}`,
    );
    const countsA = a.json<PollenBody>().data.map((r) => r.Count.tree_pollen);
    const countsB = b.json<PollenBody>().data.map((r) => r.Count.tree_pollen);
    expect(countsA).not.toEqual(countsB);
    expect(new Set(countsA).size).toBeGreaterThan(5);
  });
});

describe('pollen, current shapes', () => {
  it('latest: success envelope with coordinates, one record stamped updatedAt', async () => {
    const res = await client.get(`/latest/pollen/by-lat-lng?${berlin}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const body = res.json<PollenBody>();
    expect(body).toMatchObject({ message: 'success', lat: 52.52, lng: 13.405 });
    expect(body.data).toHaveLength(1);
    const [record] = body.data;
    expect(Object.keys(record!)).toEqual(['timezone', 'Count', 'Risk', 'Species', 'updatedAt']);
    expect(record!.timezone).toBe('Europe/Berlin');
    expect(record!.updatedAt).toBe(new Date(NOW_HOUR_S * 1000).toISOString());
    expectPollenRecord(record!);
  });

  it('sends the European species set, Others as a bare integer, Count off the species sum by a few', async () => {
    const res = await client.get(
      `/history/pollen/by-lat-lng?${historyQuery(52.52, 13.405, '2024-04-20T00:00:00Z', '2024-04-22T00:00:00Z')}`,
    );
    const records = res.json<PollenBody>().data;
    expect(records).toHaveLength(48);
    let differing = 0;
    for (const record of records) {
      expectPollenRecord(record);
      const species = record.Species!;
      expect(Object.keys(species)).toEqual(['Grass', 'Others', 'Tree', 'Weed']);
      expect(Object.keys(species.Tree)).toEqual(speciesNames('europe', 'tree'));
      expect(Object.keys(species.Weed)).toEqual(['Chenopod', 'Mugwort', 'Nettle', 'Ragweed']);
      expect(Object.keys(species.Grass)).toEqual(['Grass / Poaceae']);
      expect(Number.isInteger(species.Others)).toBe(true);
      const treeSum = Object.values(species.Tree).reduce((a, b) => a + b, 0);
      expect(Math.abs(record.Count.tree_pollen! - treeSum)).toBeLessThanOrEqual(3);
      if (record.Count.tree_pollen !== treeSum) differing += 1;
    }
    expect(differing).toBeGreaterThan(10);
  });

  it('history: hourly records on the hour, stamped time (epoch s) and createdAt, from inclusive, to exclusive', async () => {
    const res = await client.get(
      `/history/pollen/by-lat-lng?${historyQuery(52.52, 13.405, '2024-03-01T10:30:00Z', '2024-03-01T14:00:00Z')}`,
    );
    const records = res.json<PollenBody>().data;
    expect(records.map((r) => r.time)).toEqual(
      [11, 12, 13].map((h) => Date.UTC(2024, 2, 1, h) / 1000),
    );
    for (const record of records) {
      expect(Object.keys(record)).toEqual([
        'time',
        'timezone',
        'Count',
        'Risk',
        'Species',
        'createdAt',
      ]);
      const created = Date.parse(record.createdAt!);
      expect(created).toBeGreaterThan(record.time! * 1000);
      expect(created).toBeLessThan((record.time! + 3600) * 1000);
    }
  });

  it('has the species of each region, and none where the service has none', async () => {
    const treeOf = async (lat: number, lng: number) =>
      (await client.get(`/latest/pollen/by-lat-lng?lat=${lat}&lng=${lng}`)).json<PollenBody>()
        .data[0]!;
    const ny = await treeOf(PLACES.newYork.lat, PLACES.newYork.lng);
    expect(Object.keys(ny.Species!.Tree)).toEqual(speciesNames('north_america', 'tree'));
    expect(Object.keys(ny.Species!.Tree)).toContain('Cypress / Juniper / Cedar');
    expect(Object.keys(ny.Species!.Weed)).toEqual(['Ragweed']);
    const brisbane = await treeOf(PLACES.brisbane.lat, PLACES.brisbane.lng);
    expect(Object.keys(brisbane.Species!.Tree)).toEqual(speciesNames('australia_qld_nt', 'tree'));
    expect(brisbane.timezone).toBe('Australia/Brisbane');
    const sydney = await treeOf(PLACES.sydney.lat, PLACES.sydney.lng);
    expect(Object.keys(sydney.Species!.Tree)).toEqual(speciesNames('australia_nz_rest', 'tree'));
    expect(Object.keys(sydney.Species!.Weed)).toContain('Rumex');
    const nairobi = await treeOf(PLACES.nairobi.lat, PLACES.nairobi.lng);
    expect(nairobi.Species).toBeUndefined();
    expectPollenRecord(nairobi);
  });

  it('speciesRisk=True adds SpeciesRisk for every species, consistent with its count', async () => {
    const res = await client.get(`/latest/pollen/by-lat-lng?${berlin}&speciesRisk=True`);
    const [record] = res.json<PollenBody>().data;
    const risk = record!.SpeciesRisk!;
    const all = { ...record!.Species!.Tree, ...record!.Species!.Grass, ...record!.Species!.Weed };
    expect(Object.keys(risk).sort()).toEqual(Object.keys(all).sort());
    for (const value of Object.values(risk)) expect(RISK_LEVELS).toContain(value);
    expect(risk.Birch).toBe(pollenRiskOf('tree', all.Birch!));
    const without = await client.get(`/latest/pollen/by-lat-lng?${berlin}&speciesRisk=false`);
    expect(without.json<PollenBody>().data[0]!.SpeciesRisk).toBeUndefined();
  });

  it('legacy forecast: 48 hourly records from the current hour stamped time', async () => {
    const res = await client.get(`/forecast/pollen/by-lat-lng?${berlin}`);
    const records = res.json<PollenBody>().data;
    expect(records).toHaveLength(48);
    records.forEach((r, i) => expect(r.time).toBe(NOW_HOUR_S + i * 3600));
    expect(Object.keys(records[0]!)).toEqual(['time', 'timezone', 'Count', 'Risk', 'Species']);
  });

  it('120 h forecast: 40 three-hourly records with time, updatedAt (same instant) and timezone', async () => {
    const res = await client.get(`/forecast/v2/pollen/120hr/by-lat-lng?${berlin}`);
    const records = res.json<PollenBody>().data;
    expect(records).toHaveLength(40);
    const start = Date.UTC(2024, 6, 1, 12) / 1000;
    records.forEach((r, i) => {
      expect(r.time).toBe(start + i * 3 * 3600);
      expect(r.updatedAt).toBe(new Date(r.time! * 1000).toISOString());
      expect(r.timezone).toBe('Europe/Berlin');
      expectPollenRecord(r);
    });
  });

  it('by-place endpoints locate the place and answer for its coordinates', async () => {
    const byPlace = (await client.get('/latest/pollen/by-place?place=Berlin')).json<PollenBody>();
    expect(byPlace.lat).toBeCloseTo(52.52, 1);
    expect(byPlace.data[0]!.timezone).toBe('Europe/Berlin');
    const history = await client.get(
      `/history/pollen/by-place?place=Brisbane&from=2024-01-01%2000:00:00&to=2024-01-01%2003:00:00`,
    );
    expect(history.json<PollenBody>().data).toHaveLength(3);
    expect(
      (await client.get('/forecast/pollen/by-place?place=Darwin')).json<PollenBody>().data,
    ).toHaveLength(48);
    expect(
      (await client.get('/forecast/v2/pollen/120hr/by-place?place=Sydney')).json<PollenBody>().data,
    ).toHaveLength(40);
  });
});

describe('weather and geocoding, current shapes', () => {
  it('latest: message envelope, data one object with time, lat, lng and every key', async () => {
    const res = await client.get(`/weather/latest/by-lat-lng?${berlin}&units=si`);
    const body = res.json<{ message: string; data: Json }>();
    expect(body.message).toBe('success');
    const [time, ...rest] = WEATHER_KEYS;
    expect(Object.keys(body.data)).toEqual([time, 'lat', 'lng', ...rest]);
    expect(body.data).toMatchObject({ lat: 52.52, lng: 13.405, time: Date.parse(TEST_NOW) / 1000 });
  });

  it('history: status envelope, data {lat, lng, history} of hourly records with fractions and valid icons', async () => {
    const res = await client.get(
      `/weather/history/by-lat-lng?${historyQuery(52.52, 13.405, '2024-01-10T00:00:00Z', '2024-01-12T00:00:00Z')}&units=si`,
    );
    const body = res.json<{
      status: string;
      data: { lat: number; lng: number; history: Json[] };
    }>();
    expect(Object.keys(body)).toEqual(['status', 'data']);
    expect(body.status).toBe('success');
    expect(Object.keys(body.data)).toEqual(['lat', 'lng', 'history']);
    expect(body.data.history).toHaveLength(48);
    body.data.history.forEach((record, i) => {
      expect(Object.keys(record)).toEqual(WEATHER_KEYS);
      expect(record.time).toBe(Date.UTC(2024, 0, 10) / 1000 + i * 3600);
      for (const key of ['humidity', 'cloudCover', 'precipProbability']) {
        expect(record[key]).toBeGreaterThanOrEqual(0);
        expect(record[key]).toBeLessThanOrEqual(1);
      }
      const icon = String(record.icon);
      const base = icon.replace(/-(day|night)$/, '');
      expect(WEATHER_ICONS).toContain(base);
      expect(icon !== base).toBe(base === 'clear' || base === 'partly-cloudy');
      expect(['rain', 'snow']).toContain(record.precipType);
      expect(typeof record.summary).toBe('string');
      expect(record.pressure).toBeGreaterThan(950);
      expect(record.pressure).toBeLessThan(1060);
    });
  });

  it('forecast: message envelope, data {lat, lng, forecast} of 72 hourly records from the current hour', async () => {
    const body = (await client.get(`/weather/forecast/by-lat-lng?${berlin}&units=si`)).json<{
      message: string;
      data: { forecast: Json[] };
    }>();
    expect(body.message).toBe('success');
    expect(Object.keys(body.data)).toEqual(['lat', 'lng', 'forecast']);
    expect(body.data.forecast).toHaveLength(72);
    body.data.forecast.forEach((r, i) => expect(r.time).toBe(NOW_HOUR_S + i * 3600));
  });

  it('serves imperial units when units is absent, SI with units=si', async () => {
    const query = `/weather/history/by-lat-lng?${historyQuery(52.52, 13.405, '2024-07-01T00:00:00Z', '2024-07-01T06:00:00Z')}`;
    const si = (await client.get(`${query}&units=si`)).json<{ data: { history: Json[] } }>().data
      .history;
    const imperial = (await client.get(query)).json<{ data: { history: Json[] } }>().data.history;
    si.forEach((record, i) => {
      const other = imperial[i]!;
      expect(other.temperature).toBeCloseTo((Number(record.temperature) * 9) / 5 + 32, 1);
      expect(other.windSpeed).toBeCloseTo(Number(record.windSpeed) * 2.236936, 1);
      expect(other.visibility).toBeCloseTo(Number(record.visibility) * 0.621371, 1);
      expect(other.pressure).toBe(record.pressure);
      expect(other.humidity).toBe(record.humidity);
    });
  });

  it('geocoding: data is an array of matches with lat, lng and the address fields, best first', async () => {
    const body = (await client.get('/geocode/by-place?place=Berlin')).json<{
      message: string;
      data: Json[];
    }>();
    expect(body.message).toBe('success');
    expect(body.data[0]).toMatchObject({
      address: {
        label: 'Berlin, Germany',
        countryCode: 'DE',
        countryName: 'Germany',
        city: 'Berlin',
      },
    });
    expect(Object.keys(body.data[0]!.address as Json)).toEqual([
      'label',
      'countryCode',
      'countryName',
      'state',
      'city',
      'postalCode',
    ]);
    expect(typeof body.data[0]!.lat).toBe('number');
    const reverse = (await client.get('/geocode/reverse/by-lat-lng?lat=48.857&lng=2.352')).json<{
      data: Json[];
    }>();
    expect(reverse.data[0]).toMatchObject({ address: { city: 'Paris', countryCode: 'FR' } });
    const none = await client.get('/geocode/by-place?place=Qxzqxzqxz');
    expect(none.json()).toEqual({ message: 'Data not available!', data: [] });
  });
});

describe('legacy shapes', () => {
  it('all variants: Success, string coordinates, ISO timestamp, no Species or timezone', async () => {
    sim().setOptions({ legacyShapes: true });
    const history = (
      await client.get(
        `/history/pollen/by-lat-lng?${historyQuery(52.52, 13.405, '2024-04-20T00:00:00Z', '2024-04-20T02:00:00Z')}`,
      )
    ).json<PollenBody>();
    expect(history).toMatchObject({ message: 'Success', lat: '52.52', lng: '13.405' });
    expect(history.data.map((r) => r.timestamp)).toEqual([
      '2024-04-20T00:00:00.000Z',
      '2024-04-20T01:00:00.000Z',
    ]);
    for (const record of history.data) {
      // The recorded key order (`recordedKeyOrder`): Risk before Count.
      expect(Object.keys(record)).toEqual(['timestamp', 'Risk', 'Count']);
      expectPollenRecord(record);
    }
    const forecast = (
      await client.get(`/forecast/v2/pollen/120hr/by-lat-lng?${berlin}`)
    ).json<PollenBody>();
    expect(forecast.data[0]!.timestamp).toBe(forecast.data[0]!.updatedAt);
  });

  it('all variants: weather history {message, data: [...]}, forecast bare array, percentages, string coordinates', async () => {
    sim().setOptions({ legacyShapes: true });
    const history = (
      await client.get(
        `/weather/history/by-lat-lng?${historyQuery(52.52, 13.405, '2024-04-20T00:00:00Z', '2024-04-20T03:00:00Z')}&units=si`,
      )
    ).json<{ message: string; data: Json[] }>();
    expect(Object.keys(history)).toEqual(['message', 'data']);
    expect(history.message).toBe('Success');
    expect(history.data).toHaveLength(3);
    expect(history.data.some((r) => Number(r.humidity) > 1)).toBe(true);
    expect(
      history.data.every((r) => Number.isInteger(r.humidity) && Number(r.humidity) <= 100),
    ).toBe(true);
    const forecast = (await client.get(`/weather/forecast/by-lat-lng?${berlin}&units=si`)).json<{
      data: Json[];
    }>();
    expect(Array.isArray(forecast.data)).toBe(true);
    expect(forecast.data).toHaveLength(72);
    const latest = (await client.get(`/weather/latest/by-lat-lng?${berlin}&units=si`)).json<{
      data: Json;
    }>();
    expect(latest.data).toMatchObject({ lat: '52.52', lng: '13.405' });
    const geocode = (await client.get('/geocode/by-place?place=Berlin')).json<{ data: Json[] }>();
    expect(typeof geocode.data[0]!.lat).toBe('string');
  });

  it('percentages: humidity, cloud cover and precipitation probability as whole percentages in every weather answer', async () => {
    sim().setOptions({ legacyShapes: { percentages: true } });
    const history = (
      await client.get(
        `/weather/history/by-lat-lng?${historyQuery(52.52, 13.405, '2024-04-20T00:00:00Z', '2024-04-22T00:00:00Z')}&units=si`,
      )
    ).json<{ data: { history: Json[] } }>().data.history;
    const forecast = (await client.get(`/weather/forecast/by-lat-lng?${berlin}&units=si`)).json<{
      data: { forecast: Json[] };
    }>().data.forecast;
    const latest = (await client.get(`/weather/latest/by-lat-lng?${berlin}&units=si`)).json<{
      data: Json;
    }>().data;
    const records = [...history, ...forecast, latest];
    for (const field of ['humidity', 'cloudCover', 'precipProbability']) {
      for (const record of records) {
        const value = record[field];
        expect(Number.isInteger(value) && Number(value) >= 0 && Number(value) <= 100).toBe(true);
      }
      // Each field is a percentage, not a fraction that happens to be 0 or 1.
      expect([field, records.some((r) => Number(r[field]) > 1)]).toEqual([field, true]);
    }
  });

  it('noLatestStamp: latest pollen and weather readings without any stamp key; forecasts and history keep theirs', async () => {
    const stampKeys = (record: object) =>
      ['time', 'timestamp', 'updatedAt', 'createdAt'].filter((key) => key in record);
    sim().setOptions({ legacyShapes: true });
    const legacy = (await client.get(`/latest/pollen/by-lat-lng?${berlin}`)).json<PollenBody>();
    // `all` leaves it off: it is no recorded shape.
    expect(stampKeys(legacy.data[0]!)).toEqual(['updatedAt']);
    sim().setOptions({ legacyShapes: { noLatestStamp: true } });
    const pollen = (await client.get(`/latest/pollen/by-lat-lng?${berlin}`)).json<PollenBody>();
    expect(pollen.data).toHaveLength(1);
    expect(stampKeys(pollen.data[0]!)).toEqual([]);
    expect(pollen.data[0]!.Count.tree_pollen).toBeTypeOf('number');
    const weather = (await client.get(`/weather/latest/by-lat-lng?${berlin}&units=si`)).json<{
      data: Json;
    }>().data;
    expect(stampKeys(weather)).toEqual([]);
    expect(Object.keys(weather)).toEqual(['lat', 'lng', ...WEATHER_KEYS.slice(1)]);
    const forecast = (await client.get(`/forecast/pollen/by-lat-lng?${berlin}`)).json<PollenBody>();
    expect(forecast.data.every((r) => stampKeys(r).includes('time'))).toBe(true);
    const weatherForecast = (
      await client.get(`/weather/forecast/by-lat-lng?${berlin}&units=si`)
    ).json<{ data: { forecast: Json[] } }>().data.forecast;
    expect(weatherForecast.every((r) => stampKeys(r).includes('time'))).toBe(true);
    const history = (
      await client.get(
        `/history/pollen/by-lat-lng?${historyQuery(52.52, 13.405, '2024-04-20T00:00:00Z', '2024-04-20T02:00:00Z')}`,
      )
    ).json<PollenBody>();
    expect(history.data.map((r) => stampKeys(r))).toEqual([
      ['time', 'createdAt'],
      ['time', 'createdAt'],
    ]);
  });

  it('single variants switch alone: Risks instead of SpeciesRisk, records without Species', async () => {
    sim().setOptions({ legacyShapes: { speciesRiskKey: 'Risks' } });
    const risks = (
      await client.get(`/latest/pollen/by-lat-lng?${berlin}&speciesRisk=True`)
    ).json<PollenBody>();
    expect(risks.message).toBe('success');
    expect(risks.data[0]!.Risks).toBeDefined();
    expect(risks.data[0]!.SpeciesRisk).toBeUndefined();
    sim().setOptions({ legacyShapes: { noSpecies: true } });
    const bare = (await client.get(`/latest/pollen/by-lat-lng?${berlin}`)).json<PollenBody>();
    expect(bare.data[0]!.Species).toBeUndefined();
    expect(bare.data[0]!.timezone).toBe('Europe/Berlin');
  });

  it('are switched over HTTP through POST /__admin/options', async () => {
    const set = await client.post('/__admin/options', {
      legacyShapes: { capitalSuccess: true, swappedEnvelopes: true },
    });
    expect(set.status).toBe(200);
    expect(set.json()).toMatchObject({
      legacyShapes: { capitalSuccess: true, swappedEnvelopes: true },
    });
    const history = (
      await client.get(
        `/weather/history/by-lat-lng?${historyQuery(52.52, 13.405, '2024-04-20T00:00:00Z', '2024-04-20T01:00:00Z')}&units=si`,
      )
    ).json<{ message: string; data: { history: Json[] } }>();
    expect(history.message).toBe('Success');
    expect(history.data.history).toHaveLength(1);
    const bad = await client.post('/__admin/options', { legacyShapes: { sparkles: true } });
    expect(bad.status).toBe(400);
    expect(bad.json<{ message: string }>().message).toContain('legacyShapes');
  });
});

describe('recorded quirks', () => {
  type WeatherHistoryBody = { data: { history: Json[] } };
  const SHARES = ['humidity', 'cloudCover', 'precipProbability'] as const;
  const weatherHistory = async (from: string, to: string) =>
    (
      await client.get(
        `/weather/history/by-lat-lng?${historyQuery(52.52, 13.405, from, to)}&units=si`,
      )
    ).json<WeatherHistoryBody>().data.history;
  /** History, forecast and latest weather records at Berlin, in the shapes set now. */
  const weatherRecords = async () => [
    ...(await weatherHistory('2024-04-20T00:00:00Z', '2024-04-22T00:00:00Z')),
    ...(await client.get(`/weather/forecast/by-lat-lng?${berlin}&units=si`)).json<{
      data: { forecast: Json[] };
    }>().data.forecast,
    (await client.get(`/weather/latest/by-lat-lng?${berlin}&units=si`)).json<{ data: Json }>().data,
  ];

  it.each([
    [{ unitsPerField: true }, ['humidity']],
    [{ precipPercent: true }, ['precipProbability']],
    [{ unitsPerField: true, precipPercent: true }, ['humidity', 'precipProbability']],
    // `percentages` wins: every field in percent.
    [{ percentages: true, unitsPerField: true }, ['humidity', 'cloudCover', 'precipProbability']],
  ])(
    'units per field %o: %o as whole percentages of the fractions sent without it, the other fields as those fractions',
    async (variants, percent) => {
      const fractions = await weatherRecords();
      sim().setOptions({ legacyShapes: variants });
      const mixed = await weatherRecords();
      expect(mixed).toHaveLength(fractions.length);
      mixed.forEach((record, i) => {
        const clean = fractions[i]!;
        for (const field of SHARES) {
          const expected = percent.includes(field)
            ? Math.round(Number(clean[field]) * 100)
            : clean[field];
          expect([field, record[field]]).toEqual([field, expected]);
        }
        const rest = (r: Json) =>
          Object.fromEntries(Object.entries(r).filter(([k]) => !SHARES.includes(k as never)));
        expect(rest(record)).toEqual(rest(clean));
      });
      for (const field of SHARES) {
        const values = mixed.map((r) => Number(r[field]));
        // Each field tells its unit in these answers: above 1 in percent, between 0 and 1 else.
        const telling = percent.includes(field)
          ? values.some((v) => v > 1)
          : values.some((v) => v > 0 && v < 1);
        expect([field, telling]).toEqual([field, true]);
      }
    },
  );

  it('overcast hours send cloud cover exactly 1 and dry hours precipitation probability 0, so whole answers of a field can be only 0s and 1s', async () => {
    sim().setOptions({ legacyShapes: { unitsPerField: true } });
    // A stratus deck over Berlin for two days: humidity in percent beside cloud cover 1, as in
    // the live capture (humidity 92, cloud cover 1, "overcast clouds").
    const overcast = await weatherHistory('2024-01-10T00:00:00Z', '2024-01-12T00:00:00Z');
    expect(overcast).toHaveLength(48);
    expect(new Set(overcast.map((r) => r.cloudCover))).toEqual(new Set([1]));
    // Icons agree: no clear or partly cloudy sky.
    const icons = new Set(overcast.map((r) => String(r.icon)));
    expect([...icons].filter((icon) => !['cloudy', 'fog', 'rain', 'snow'].includes(icon))).toEqual(
      [],
    );
    expect(overcast.some((r) => Number(r.humidity) > 1)).toBe(true);
    // Over a summer month, cloud cover 1 and precipitation probability 0 beside fractions.
    const days = Array.from({ length: 15 }, (_, i) => Date.UTC(2024, 5, 1 + 2 * i));
    const windows = await Promise.all(
      days.map((day) =>
        weatherHistory(new Date(day).toISOString(), new Date(day + 48 * 3_600_000).toISOString()),
      ),
    );
    const month = windows.flat();
    expect(month).toHaveLength(720);
    const count = (field: string, value: number) => month.filter((r) => r[field] === value).length;
    expect(count('cloudCover', 1)).toBeGreaterThan(10);
    expect(count('precipProbability', 0)).toBeGreaterThan(100);
    expect(month.some((r) => Number(r.cloudCover) > 0 && Number(r.cloudCover) < 1)).toBe(true);
  });

  it('offHourStamps: latest readings stamped with the second of the request, off the hour', async () => {
    sim().setOptions({ legacyShapes: { offHourStamps: true }, now: '2024-07-01T12:34:56Z' });
    try {
      const pollen = (await client.get(`/latest/pollen/by-lat-lng?${berlin}`)).json<PollenBody>();
      expect(pollen.data[0]!.updatedAt).toBe('2024-07-01T12:34:56.000Z');
      const weather = (await client.get(`/weather/latest/by-lat-lng?${berlin}&units=si`)).json<{
        data: Json;
      }>().data;
      expect(weather.time).toBe(Date.parse('2024-07-01T12:34:56Z') / 1000);
      // Without it: pollen on the hour, weather to the minute.
      sim().setOptions({ legacyShapes: false });
      const onHour = (await client.get(`/latest/pollen/by-lat-lng?${berlin}`)).json<PollenBody>();
      expect(onHour.data[0]!.updatedAt).toBe('2024-07-01T12:00:00.000Z');
      const minute = (await client.get(`/weather/latest/by-lat-lng?${berlin}&units=si`)).json<{
        data: Json;
      }>().data;
      expect(minute.time).toBe(Date.parse('2024-07-01T12:34:00Z') / 1000);
      // Counts are those of the hour either way.
      expect(onHour.data[0]!.Count).toEqual(pollen.data[0]!.Count);
    } finally {
      sim().setOptions({ now: TEST_NOW });
    }
  });

  it('recordedKeyOrder: pollen keys in the 2024 order, weather in the documented Dark-Sky order, the same values', async () => {
    const paths = [
      `/latest/pollen/by-lat-lng?${berlin}&speciesRisk=true`,
      `/history/pollen/by-lat-lng?${historyQuery(52.52, 13.405, '2024-04-20T00:00:00Z', '2024-04-20T02:00:00Z')}`,
      `/forecast/v2/pollen/120hr/by-lat-lng?${berlin}`,
      `/weather/latest/by-lat-lng?${berlin}&units=si`,
      `/weather/history/by-lat-lng?${historyQuery(52.52, 13.405, '2024-04-20T00:00:00Z', '2024-04-20T02:00:00Z')}&units=si`,
    ];
    const before = await Promise.all(paths.map(async (p) => (await client.get(p)).json()));
    sim().setOptions({ legacyShapes: { recordedKeyOrder: true } });
    const after = await Promise.all(paths.map(async (p) => (await client.get(p)).json()));
    expect(after).toEqual(before);
    const [latest, history, forecast, weatherLatest, weatherHistory] = after as [
      PollenBody,
      PollenBody,
      PollenBody,
      { data: Json },
      WeatherHistoryBody,
    ];
    expect(Object.keys(latest.data[0]!)).toEqual([
      'timezone',
      'Species',
      'SpeciesRisk',
      'Risk',
      'Count',
      'updatedAt',
    ]);
    expect(Object.keys(history.data[0]!)).toEqual([
      'time',
      'timezone',
      'Species',
      'Risk',
      'Count',
      'createdAt',
    ]);
    expect(Object.keys(forecast.data[0]!)).toEqual([
      'time',
      'timezone',
      'Species',
      'Risk',
      'Count',
      'updatedAt',
    ]);
    const darkSky = [
      'time',
      'precipIntensity',
      'precipProbability',
      'precipType',
      'temperature',
      'apparentTemperature',
      'summary',
      'icon',
      'dewPoint',
      'humidity',
      'pressure',
      'windSpeed',
      'windGust',
      'windBearing',
      'cloudCover',
      'uvIndex',
      'visibility',
      'ozone',
    ];
    expect(Object.keys(weatherHistory.data.history[0]!)).toEqual(darkSky);
    expect(Object.keys(weatherLatest.data)).toEqual([...darkSky, 'lat', 'lng']);
  });

  it('escapedSlashes: species names with \\/ in the text, the same names once parsed', async () => {
    const path = `/latest/pollen/by-lat-lng?lat=${PLACES.newYork.lat}&lng=${PLACES.newYork.lng}&speciesRisk=true`;
    const plain = await client.get(path);
    sim().setOptions({ legacyShapes: { escapedSlashes: true } });
    const escaped = await client.get(path);
    expect(plain.text).toContain('"Cypress / Juniper / Cedar":');
    expect(escaped.text).not.toContain('"Cypress / Juniper / Cedar":');
    expect(escaped.text).toContain('"Cypress \\/ Juniper \\/ Cedar":');
    expect(escaped.json()).toEqual(plain.json());
    const europe = await client.get(`/latest/pollen/by-lat-lng?${berlin}`);
    expect(europe.text).toContain('"Grass \\/ Poaceae":');
  });

  it('are named in ENVDATA_SIM_LEGACY_SHAPES', () => {
    expect(Object.keys(SHAPE_VARIANT_NAMES)).toEqual(
      expect.arrayContaining([
        'units-per-field',
        'precip-percent',
        'off-hour-stamps',
        'recorded-key-order',
        'escaped-slashes',
      ]),
    );
  });
});
