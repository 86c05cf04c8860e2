import { readdirSync, readFileSync } from 'node:fs';
import type { Job } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnapshotJobData } from '../../jobs/snapshot-job.js';
import { pollenDataset } from '../../src/datasets/pollen/pollen-dataset.js';
import { snapshotSourceOf } from '../../src/datasets/snapshot-source-of.js';
import {
  normalizeWeather,
  weatherShareUnits,
} from '../../src/datasets/weather/normalize-weather.js';
import { weatherDataset } from '../../src/datasets/weather/weather-dataset.js';
import { createFetchSnapshotProcessor } from '../../src/ingest/fetch-snapshot-job.js';
import { Admission } from '../../src/admission/admission.js';
import { ThrottleBackoff } from '../../src/admission/throttle-backoff.js';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { readShareUnits, recordShareUnits } from '../../src/ledger/share-unit.js';
import type { Location } from '../../src/locations/location.js';
import type {
  LatestRecord,
  PollenPayload,
  PollenRecord,
  WeatherRecord,
} from '../../src/service/models.js';
import { createServiceClient, type ServiceClient } from '../../src/service/service-client.js';
import { ServiceError } from '../../src/service/service-error.js';
import type { Dataset, RiskLevel, SnapshotProduct } from '../../src/types.js';
import { SpeciesIds } from '../../src/warehouse/species-ids.js';
import { startStubService, type StubService } from '../harness/start-stub-service.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

/**
 * The recorded bodies (test/fixtures/real-bodies, INDEX.md says what each one is) fed through
 * the path a live answer takes: served over HTTP by a stub, read by the client method of the
 * endpoint that answers it, normalized by the dataset's definition, and stored in this file's
 * warehouse by the production snapshot job (latest readings, forecasts) or the FactWriter
 * (history). Every expected value below was read off the body by hand; a body that cannot
 * land asserts the reason it is refused.
 */

const DIR = new URL('../fixtures/real-bodies/', import.meta.url);
const H = 3_600_000;
const wh = useTestWarehouse();

/** The body file as recorded, byte for byte. */
const body = (file: string): string => readFileSync(new URL(file, DIR), 'utf8');
/** INDEX.md "Form": a `data[]` array or `data` object fragment, wrapped to be replayed. */
const wrapped = (file: string, lat: number, lng: number): string =>
  `{"message":"success","lat":${lat},"lng":${lng},"data":${body(file)}}`;
/** INDEX.md "Form": one `data[]` element, wrapped the same way (in an array). */
const wrappedElement = (file: string, lat: number, lng: number): string =>
  `{"message":"success","lat":${lat},"lng":${lng},"data":[${body(file)}]}`;

let stub: StubService;
let client: ServiceClient;
/** What the stub answers to the next request (every endpoint): one body at a time. */
let serving = '';
let pollenAt: Location;
let weatherAt: Location;
let processSnapshot: (job: Job<SnapshotJobData>) => Promise<number>;

beforeAll(async () => {
  stub = await startStubService(() => ({ status: 200, body: serving }));
  client = createServiceClient({
    ...wh.app.config.service,
    baseUrl: stub.url,
    apiKey: 'real-bodies-test-key',
  });
  pollenAt = await wh.addLocation({
    name: 'Strasbourg',
    lat: 48.532,
    lng: 7.713,
    countryCode: 'FR',
  });
  weatherAt = await wh.addLocation({ name: 'Richmond', lat: 37, lng: -77, countryCode: 'US' });
  processSnapshot = snapshotProcessor();
});

/** The snapshot job as a worker runs it, with a share-unit memory of its own (a new worker). */
function snapshotProcessor() {
  return createFetchSnapshotProcessor({
    db: wh.app.db,
    client,
    species: new SpeciesIds(),
    logger: wh.app.logger,
    speciesRisk: false,
    admission: new Admission({
      throttle: new ThrottleBackoff(),
      pauseAll: (ms) => Promise.reject(new Error(`unexpected pause of ${ms} ms`)),
    }),
  });
}

afterAll(async () => {
  await client?.close();
  await stub?.close();
});

/** The path of the last request the stub received: which endpoint the client called. */
const lastPath = (): string | undefined => stub.requests.at(-1)?.path;

const SNAPSHOT_PATHS: Readonly<Record<string, string>> = {
  'pollen latest': '/latest/pollen/by-lat-lng',
  'pollen forecast_48h': '/forecast/pollen/by-lat-lng',
  'pollen forecast_120h': '/forecast/v2/pollen/120hr/by-lat-lng',
  'weather latest': '/weather/latest/by-lat-lng',
  'weather forecast_72h': '/weather/forecast/by-lat-lng',
};

/** A fetch instant of its own for each snapshot: the rows of one body are told apart by it. */
let clock = Date.parse('2024-07-01T12:20:00Z');
const nextFetch = (): Date => new Date((clock += H));

/**
 * `raw` served as the answer to `product` of `dataset`: fetched as a sync does (the dataset's
 * snapshot source, the client method of the endpoint: envelope, parse, a stampless latest
 * reading stamped at fetch), then stored by the snapshot job (share units, `toRows`, the
 * warehouse). Returns the parsed payload and the rows the job wrote.
 */
async function snapshot(
  dataset: Dataset,
  product: SnapshotProduct,
  raw: string,
  fetchedAt = nextFetch(),
) {
  serving = raw;
  const location = dataset === 'pollen' ? pollenAt : weatherAt;
  const source = snapshotSourceOf(dataset, product);
  const payload = await source.fetch(client, {
    location,
    options: { speciesRisk: false },
    fetchedAt,
  });
  expect(lastPath()).toBe(SNAPSHOT_PATHS[`${dataset} ${product}`]);
  const written = await processSnapshot({
    data: {
      runId: 1,
      locationId: location.locationId,
      product,
      dataset,
      fetchedAt: fetchedAt.toISOString(),
    },
  } as Job<SnapshotJobData>);
  expect(lastPath()).toBe(SNAPSHOT_PATHS[`${dataset} ${product}`]);
  return { payload, written, fetchedAt };
}

// ---------------------------------------------------------------------------------------------
// Pollen

type Counts = { grass_pollen: number; tree_pollen: number; weed_pollen: number };
type Risks = { grass_pollen: RiskLevel; tree_pollen: RiskLevel; weed_pollen: RiskLevel };
interface SpeciesMap {
  readonly Grass: Readonly<Record<string, number>>;
  readonly Others: number;
  readonly Tree: Readonly<Record<string, number>>;
  readonly Weed: Readonly<Record<string, number>>;
}

/** One pollen record as the body writes it (`Count`, `Risk`, `Species`), at the UTC hour stored. */
interface PollenReading {
  readonly hour: string;
  readonly Count: Counts;
  readonly Risk: Risks;
  /** Absent when the body sends no `Species`: no species row at all, not zeros. */
  readonly Species?: SpeciesMap;
}

/** The nine trees of the EU species set, each 0 unless the body says otherwise. */
function euTrees(sent: Readonly<Record<string, number>> = {}): Record<string, number> {
  const names = ['Alder', 'Birch', 'Cypress', 'Elm', 'Hazel', 'Oak', 'Pine', 'Plane'];
  return Object.fromEntries([...names, 'Poplar / Cottonwood'].map((n) => [n, sent[n] ?? 0]));
}

/** The nine trees of the NA species set, each 0 unless the body says otherwise. */
function naTrees(sent: Readonly<Record<string, number>> = {}): Record<string, number> {
  const names = ['Ash', 'Birch', 'Cypress / Juniper / Cedar', 'Elm', 'Maple', 'Mulberry', 'Oak'];
  return Object.fromEntries(
    [...names, 'Pine', 'Poplar / Cottonwood'].map((n) => [n, sent[n] ?? 0]),
  );
}

/** The four weeds of the EU species set. */
function euWeeds(Chenopod: number, Mugwort: number, Nettle: number, Ragweed: number) {
  return { Chenopod, Mugwort, Nettle, Ragweed };
}

interface StoredPollenType {
  valid_at: Date;
  pollen_type: string;
  count: number | null;
  risk_level: string | null;
  stamped_at_fetch: boolean;
}
interface StoredPollenSpecies {
  valid_at: Date;
  category: string;
  name: string;
  count: number;
}

/** The pollen rows stored for one snapshot, by type and by species. */
async function storedPollen(product: SnapshotProduct, fetchedAt: Date) {
  const { rows: types } = await sql<StoredPollenType>`
    select valid_at, pollen_type::text as pollen_type, count, risk_level::text as risk_level,
      stamped_at_fetch
    from envdata.pollen_snapshot
    where location_id = ${pollenAt.locationId} and product = ${product}
      and fetched_at = ${fetchedAt}
    order by valid_at, pollen_type::text`.execute(wh.app.db);
  const { rows: species } = await sql<StoredPollenSpecies>`
    select p.valid_at, s.category::text as category, s.name, p.count
    from envdata.pollen_species_snapshot p join envdata.pollen_species s using (species_id)
    where p.location_id = ${pollenAt.locationId} and p.product = ${product}
      and p.fetched_at = ${fetchedAt}
    order by p.valid_at, s.category::text, s.name`.execute(wh.app.db);
  return { types, species };
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Asserts the rows stored at `reading.hour` are the reading's values, field by field. */
function expectReading(
  stored: Awaited<ReturnType<typeof storedPollen>>,
  reading: PollenReading,
  stampedAtFetch = false,
) {
  const at = new Date(reading.hour).getTime();
  const types = stored.types.filter((r) => r.valid_at.getTime() === at);
  expect(types).toEqual(
    (['grass', 'tree', 'weed'] as const).map((type) => ({
      valid_at: new Date(reading.hour),
      pollen_type: type,
      count: reading.Count[`${type}_pollen`],
      risk_level: reading.Risk[`${type}_pollen`],
      stamped_at_fetch: stampedAtFetch,
    })),
  );
  const species = stored.species.filter((r) => r.valid_at.getTime() === at);
  const s = reading.Species;
  const expected =
    s === undefined
      ? []
      : [
          ...(['Grass', 'Tree', 'Weed'] as const).flatMap((category) =>
            Object.entries(s[category]).map(([name, count]) => ({
              category: category.toLowerCase(),
              name,
              count,
            })),
          ),
          { category: 'other', name: 'Others', count: s.Others },
        ];
  expect(species.map(({ category, name, count }) => ({ category, name, count }))).toEqual(
    expected.sort((a, b) => byText(a.category, b.category) || byText(a.name, b.name)),
  );
}

/** A latest pollen body stored, and its one reading checked against `reading`. */
async function expectLatestPollen(
  raw: string,
  reading: PollenReading,
  where: { lat: number | undefined; lng: number | undefined },
) {
  const { payload, written, fetchedAt } = await snapshot('pollen', 'latest', raw);
  expect(payload.rejected).toEqual([]);
  expect(payload.records).toHaveLength(1);
  expect({ lat: payload.lat, lng: payload.lng }).toEqual(where);
  const stored = await storedPollen('latest', fetchedAt);
  expectReading(stored, reading);
  const speciesRows = reading.Species === undefined ? 0 : stored.species.length;
  expect(written).toBe(3 + speciesRows);
  return payload as unknown as { records: readonly LatestRecord<PollenRecord>[] };
}

/**
 * A pollen forecast body stored: `hours` readings from `first` every `stepHours`, each type and
 * species once per hour, and the readings named checked field by field.
 */
async function expectPollenForecast(
  product: 'forecast_48h' | 'forecast_120h',
  raw: string,
  shape: { hours: number; first: string; last: string; stepHours: number; species: number },
  readings: readonly PollenReading[],
) {
  const { payload, written, fetchedAt } = await snapshot('pollen', product, raw);
  expect(payload.rejected).toEqual([]);
  expect(payload.records).toHaveLength(shape.hours);
  const stored = await storedPollen(product, fetchedAt);
  const hours = [...new Set(stored.types.map((r) => r.valid_at.getTime()))];
  expect(hours).toHaveLength(shape.hours);
  expect(new Date(hours[0]!).toISOString()).toBe(shape.first);
  expect(new Date(hours.at(-1)!).toISOString()).toBe(shape.last);
  expect(hours.slice(1).every((h, i) => h - hours[i]! === shape.stepHours * H)).toBe(true);
  expect(stored.types).toHaveLength(shape.hours * 3);
  expect(stored.species).toHaveLength(shape.hours * shape.species);
  expect(written).toBe(shape.hours * (3 + shape.species));
  for (const reading of readings) expectReading(stored, reading);
  return payload as unknown as PollenPayload;
}

// ---------------------------------------------------------------------------------------------
// Weather

interface StoredWeather {
  valid_at: Date;
  stamped_at_fetch: boolean;
  temperature_c: number | null;
  apparent_temperature_c: number | null;
  dew_point_c: number | null;
  humidity_fraction: number | null;
  pressure_hpa: number | null;
  wind_speed_ms: number | null;
  wind_gust_ms: number | null;
  wind_bearing_deg: number | null;
  cloud_cover_fraction: number | null;
  visibility_km: number | null;
  uv_index: number | null;
  ozone_du: number | null;
  precip_intensity_mm_h: number | null;
  precip_probability_fraction: number | null;
  precip_type: string | null;
  summary: string | null;
  icon: string | null;
  icon_raw: string | null;
}

const WEATHER_COLUMNS = sql`temperature_c, apparent_temperature_c, dew_point_c,
  humidity_fraction, pressure_hpa, wind_speed_ms, wind_gust_ms, wind_bearing_deg,
  cloud_cover_fraction, visibility_km, uv_index, ozone_du, precip_intensity_mm_h,
  precip_probability_fraction, precip_type, summary, icon::text as icon, icon_raw`;

async function storedWeather(product: SnapshotProduct, fetchedAt: Date): Promise<StoredWeather[]> {
  const { rows } = await sql<StoredWeather>`
    select valid_at, stamped_at_fetch, ${WEATHER_COLUMNS}
    from envdata.weather_snapshot
    where location_id = ${weatherAt.locationId} and product = ${product}
      and fetched_at = ${fetchedAt}`.execute(wh.app.db);
  return rows;
}

/** A weather body served as a latest answer: the one record it parses to. */
async function latestWeather(raw: string) {
  const result = await snapshot('weather', 'latest', raw);
  expect(stub.requests.at(-1)?.query.get('units')).toBe('si');
  expect(result.payload.rejected).toEqual([]);
  expect(result.payload.records).toHaveLength(1);
  const record = result.payload.records[0] as LatestRecord<WeatherRecord>;
  return { ...result, record };
}

/** A weather body that parses but whose one record normalize refuses: nothing stored, and why. */
async function expectWeatherRefused(raw: string, reason: string) {
  const { payload, written, fetchedAt, record } = await latestWeather(raw);
  const normalized = normalizeWeather(payload as never);
  expect(normalized.rows).toEqual([]);
  expect(normalized.quarantined.map((q) => q.reason)).toEqual([reason]);
  expect(written).toBe(0);
  expect(await storedWeather('latest', fetchedAt)).toEqual([]);
  return { payload, record };
}

/** A service error thrown by `promise`, or a failed test. */
async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused');
}

// ---------------------------------------------------------------------------------------------
// The cases: one per body file.

const CASES: Readonly<Record<string, () => Promise<void>>> = {
  // --- Latest pollen ------------------------------------------------------------------------

  'latest-pollen__ha-ambee__1.json': async () => {
    // "Success" with a capital S; Count is not the species sum (tree 127 vs 125): both as sent.
    await expectLatestPollen(
      body('latest-pollen__ha-ambee__1.json'),
      {
        hour: '2021-06-09T16:00:00.000Z',
        Count: { grass_pollen: 190, tree_pollen: 127, weed_pollen: 95 },
        Risk: { grass_pollen: 'High', tree_pollen: 'Moderate', weed_pollen: 'High' },
        Species: {
          Grass: { 'Grass / Poaceae': 190 },
          Others: 5,
          Tree: euTrees({ Birch: 35, Oak: 55, Pine: 30, Plane: 5 }),
          Weed: euWeeds(0, 1, 88, 3),
        },
      },
      { lat: 52.42, lng: 6.42 },
    );
  },

  'latest-pollen__fibaro-pollen__1.json': async () => {
    // "Success", `"lat": 52.10` with its trailing zero.
    await expectLatestPollen(
      body('latest-pollen__fibaro-pollen__1.json'),
      {
        hour: '2021-05-08T11:00:00.000Z',
        Count: { grass_pollen: 23, tree_pollen: 172, weed_pollen: 1 },
        Risk: { grass_pollen: 'Low', tree_pollen: 'Moderate', weed_pollen: 'Low' },
        Species: {
          Grass: { 'Grass / Poaceae': 23 },
          Others: 4,
          Tree: {
            Alder: 3,
            Birch: 61,
            Cypress: 6,
            Elm: 1,
            Hazel: 0,
            Oak: 44,
            Pine: 29,
            Plane: 20,
            'Poplar / Cottonwood': 5,
          },
          Weed: euWeeds(0, 0, 0, 0),
        },
      },
      { lat: 52.1, lng: 5.17 },
    );
  },

  'latest-pollen__jeedom-airquality__1.json': async () => {
    await expectLatestPollen(
      body('latest-pollen__jeedom-airquality__1.json'),
      {
        hour: '2021-06-03T09:00:00.000Z',
        Count: { grass_pollen: 92, tree_pollen: 245, weed_pollen: 30 },
        Risk: { grass_pollen: 'High', tree_pollen: 'High', weed_pollen: 'Moderate' },
        Species: {
          Grass: { 'Grass / Poaceae': 92 },
          Others: 1,
          Tree: euTrees({ Birch: 58, Oak: 90, Pine: 75, Plane: 22 }),
          Weed: euWeeds(0, 0, 29, 0),
        },
      },
      { lat: 48.532, lng: 7.713 },
    );
  },

  'latest-pollen__jeedom-airpollen__1.json': async () => {
    // `"Grass \/ Poaceae"` (PHP re-encoded): the name is stored with a plain slash.
    await expectLatestPollen(
      body('latest-pollen__jeedom-airpollen__1.json'),
      {
        hour: '2021-09-06T17:00:00.000Z',
        Count: { grass_pollen: 0, tree_pollen: 0, weed_pollen: 50 },
        Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Moderate' },
        Species: {
          Grass: { 'Grass / Poaceae': 0 },
          Others: 1,
          Tree: euTrees(),
          Weed: euWeeds(2, 4, 34, 9),
        },
      },
      { lat: 48.57, lng: 7.75 },
    );
  },

  'latest-pollen__jeedom-airpollen__2.json': async () => {
    await expectLatestPollen(
      body('latest-pollen__jeedom-airpollen__2.json'),
      {
        hour: '2021-09-07T06:00:00.000Z',
        Count: { grass_pollen: 0, tree_pollen: 0, weed_pollen: 49 },
        Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Moderate' },
        Species: {
          Grass: { 'Grass / Poaceae': 0 },
          Others: 2,
          Tree: euTrees(),
          Weed: euWeeds(2, 3, 33, 9),
        },
      },
      { lat: 47.619, lng: 6.153 },
    );
  },

  'latest-pollen-place__express-london__1.json': async () => {
    const raw = body('latest-pollen-place__express-london__1.json');
    const reading: PollenReading = {
      hour: '2021-05-18T21:00:00.000Z',
      Count: { grass_pollen: 37, tree_pollen: 175, weed_pollen: 19 },
      Risk: { grass_pollen: 'Moderate', tree_pollen: 'Moderate', weed_pollen: 'Low' },
      Species: {
        Grass: { 'Grass / Poaceae': 37 },
        Others: 0,
        Tree: euTrees({ Birch: 38, Oak: 61, Pine: 57, Plane: 19 }),
        Weed: euWeeds(0, 0, 19, 0),
      },
    };
    // Recorded from /latest/pollen/by-place: that endpoint reads it (coordinates from geocoding).
    serving = raw;
    const byPlace = await client.pollenLatestByPlace({ place: 'London' });
    expect(lastPath()).toBe('/latest/pollen/by-place');
    expect(byPlace.rejected).toEqual([]);
    expect({ lat: byPlace.lat, lng: byPlace.lng }).toEqual({ lat: 51.4828358, lng: -0.3882062 });
    expect(byPlace.records[0]?.at).toEqual(new Date('2021-05-18T21:18:41.000Z'));
    expect(byPlace.records[0]?.counts).toEqual({ grass: 37, tree: 175, weed: 19 });
    // A sync asks for latest readings by coordinates; the shape is the same, so it is stored so.
    await expectLatestPollen(raw, reading, { lat: 51.4828358, lng: -0.3882062 });
  },

  'latest-pollen__dart-model-2022__1.json': async () => {
    await expectLatestPollen(
      body('latest-pollen__dart-model-2022__1.json'),
      {
        hour: '2022-05-18T08:00:00.000Z',
        Count: { grass_pollen: 20, tree_pollen: 118, weed_pollen: 8 },
        Risk: { grass_pollen: 'Low', tree_pollen: 'Moderate', weed_pollen: 'Low' },
        Species: {
          Grass: { 'Grass / Poaceae': 20 },
          Others: 1,
          Tree: euTrees({ Birch: 27, Oak: 42, Pine: 37, Plane: 11 }),
          Weed: euWeeds(0, 0, 8, 0),
        },
      },
      { lat: 51.1729552, lng: 5.57886 },
    );
  },

  'latest-pollen__jest-2022__1.json': async () => {
    // A data[] element: wrapped (INDEX.md "Form"). Weed count 126 vs species sum 122, as sent.
    await expectLatestPollen(
      wrappedElement('latest-pollen__jest-2022__1.json', 48.532, 7.713),
      {
        hour: '2022-08-04T13:00:00.000Z',
        Count: { grass_pollen: 31, tree_pollen: 0, weed_pollen: 126 },
        Risk: { grass_pollen: 'Moderate', tree_pollen: 'Low', weed_pollen: 'High' },
        Species: {
          Grass: { 'Grass / Poaceae': 31 },
          Others: 4,
          Tree: euTrees(),
          Weed: euWeeds(1, 2, 113, 6),
        },
      },
      { lat: 48.532, lng: 7.713 },
    );
  },

  'latest-pollen__breathe-easy__1.json': async () => {
    // NA species set; "Very High" with tree 841 (= species 820 + Others 21).
    await expectLatestPollen(
      body('latest-pollen__breathe-easy__1.json'),
      {
        hour: '2023-04-08T19:00:00.000Z',
        Count: { grass_pollen: 0, tree_pollen: 841, weed_pollen: 0 },
        Risk: { grass_pollen: 'Low', tree_pollen: 'Very High', weed_pollen: 'Low' },
        Species: {
          Grass: { 'Grass / Poaceae': 0 },
          Others: 21,
          Tree: {
            Ash: 50,
            Birch: 50,
            'Cypress / Juniper / Cedar': 201,
            Elm: 58,
            Maple: 50,
            Mulberry: 84,
            Oak: 252,
            Pine: 42,
            'Poplar / Cottonwood': 33,
          },
          Weed: { Ragweed: 0 },
        },
      },
      { lat: 35.9132, lng: -79.0558 },
    );
  },

  'latest-pollen__myweatherpal-py__1.json': async () => {
    await expectLatestPollen(
      wrappedElement('latest-pollen__myweatherpal-py__1.json', 48.532, 7.713),
      {
        hour: '2021-11-27T03:00:00.000Z',
        Count: { grass_pollen: 0, tree_pollen: 0, weed_pollen: 16 },
        Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Low' },
        Species: {
          Grass: { 'Grass / Poaceae': 0 },
          Others: 0,
          Tree: naTrees(),
          Weed: { Ragweed: 16 },
        },
      },
      { lat: 48.532, lng: 7.713 },
    );
  },

  'latest-pollen__pollentracker-journal__1.json': async () => {
    // The 2024 shape: `timezone` first, keys in reverse order, `updatedAt` on the hour.
    const payload = await expectLatestPollen(
      body('latest-pollen__pollentracker-journal__1.json'),
      {
        hour: '2024-11-10T21:00:00.000Z',
        Count: { grass_pollen: 0, tree_pollen: 8, weed_pollen: 25 },
        Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Moderate' },
        Species: {
          Grass: { 'Grass / Poaceae': 0 },
          Others: 0,
          Tree: euTrees({ Oak: 8 }),
          Weed: euWeeds(5, 0, 0, 18),
        },
      },
      { lat: 41.3874, lng: 2.1686 },
    );
    expect(payload.records[0]?.timezone).toBe('Europe/Madrid');
  },

  'latest-pollen__pollentracker-heatmap__1.json': async () => {
    const payload = await expectLatestPollen(
      wrappedElement('latest-pollen__pollentracker-heatmap__1.json', 48.532, 7.713),
      {
        hour: '2024-11-16T22:00:00.000Z',
        Count: { grass_pollen: 0, tree_pollen: 0, weed_pollen: 4 },
        Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Low' },
        Species: {
          Grass: { 'Grass / Poaceae': 0 },
          Others: 0,
          Tree: naTrees(),
          Weed: { Ragweed: 4 },
        },
      },
      { lat: 48.532, lng: 7.713 },
    );
    expect(payload.records[0]?.timezone).toBe('America/New_York');
  },

  'latest-pollen__docs-example-airqualitypollen__1.json': async () => {
    const raw = body('latest-pollen__docs-example-airqualitypollen__1.json');
    // No stamp, no lat/lng, no Species. As a latest reading it lands at the hour it was
    // fetched in, marked stamped_at_fetch, with no species rows (absent is unknown, not 0).
    const fetchedAt = new Date('2024-06-10T02:20:00Z');
    const { payload, written } = await snapshot('pollen', 'latest', raw, fetchedAt);
    expect(payload.rejected).toEqual([]);
    expect({ lat: payload.lat, lng: payload.lng }).toEqual({ lat: undefined, lng: undefined });
    expect(written).toBe(3);
    const stored = await storedPollen('latest', fetchedAt);
    expect(stored.species).toEqual([]);
    expectReading(
      stored,
      {
        hour: '2024-06-10T02:00:00.000Z',
        Count: { grass_pollen: 25, tree_pollen: 16, weed_pollen: 375 },
        Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'High' },
      },
      true,
    );
    // Where an hour cannot be guessed (a history answer), the same record is refused for it.
    serving = raw;
    const window = {
      from: new Date('2021-06-01T00:00:00Z'),
      to: new Date('2021-06-03T00:00:00Z'),
    };
    const history = await pollenDataset.fetchHistory(client, {
      location: pollenAt,
      window,
      options: { speciesRisk: false },
    });
    expect(lastPath()).toBe('/history/pollen/by-lat-lng');
    expect(history.records).toEqual([]);
    const noStamp = 'no timestamp (expected one of time, timestamp, updatedAt, createdAt)';
    expect(history.rejected.map((r) => r.reason)).toEqual([noStamp]);
    const facts = pollenDataset.toFacts(history, window);
    expect(facts.tables.map((t) => t.rows.length)).toEqual([0, 0]);
    expect(facts.quarantined.map((q) => [q.reason, q.hour])).toEqual([[noStamp, undefined]]);
  },

  // --- Pollen forecasts ---------------------------------------------------------------------

  'forecast-pollen__jeedom-airpollen__1.json': async () => {
    // The only full legacy forecast envelope: 48 hourly items stamped `time` only.
    const payload = await expectPollenForecast(
      'forecast_48h',
      body('forecast-pollen__jeedom-airpollen__1.json'),
      {
        hours: 48,
        first: '2021-09-07T07:00:00.000Z',
        last: '2021-09-09T06:00:00.000Z',
        stepHours: 1,
        species: 15,
      },
      [
        {
          hour: '2021-09-07T07:00:00.000Z',
          Count: { grass_pollen: 0, tree_pollen: 0, weed_pollen: 45 },
          Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Moderate' },
          Species: {
            Grass: { 'Grass / Poaceae': 0 },
            Others: 1,
            Tree: euTrees(),
            Weed: euWeeds(2, 3, 30, 9),
          },
        },
        {
          hour: '2021-09-09T02:00:00.000Z',
          Count: { grass_pollen: 0, tree_pollen: 0, weed_pollen: 360 },
          Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Very High' },
          Species: {
            Grass: { 'Grass / Poaceae': 0 },
            Others: 0,
            Tree: euTrees(),
            Weed: euWeeds(21, 21, 247, 71),
          },
        },
        {
          hour: '2021-09-09T06:00:00.000Z',
          Count: { grass_pollen: 0, tree_pollen: 0, weed_pollen: 69 },
          Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Moderate' },
          Species: {
            Grass: { 'Grass / Poaceae': 0 },
            Others: 1,
            Tree: euTrees(),
            Weed: euWeeds(4, 4, 47, 13),
          },
        },
      ],
    );
    expect({ lat: payload.lat, lng: payload.lng }).toEqual({ lat: 47.6194, lng: 6.1529 });
  },

  'forecast-pollen__jeedom-airquality__1.json': async () => {
    // A data[] array fragment, PHP re-encoded (`\/`, CRLF line ends).
    await expectPollenForecast(
      'forecast_48h',
      wrapped('forecast-pollen__jeedom-airquality__1.json', 48.532, 7.713),
      {
        hours: 48,
        first: '2021-06-21T16:00:00.000Z',
        last: '2021-06-23T15:00:00.000Z',
        stepHours: 1,
        species: 15,
      },
      [
        {
          hour: '2021-06-21T16:00:00.000Z',
          Count: { grass_pollen: 208, tree_pollen: 115, weed_pollen: 84 },
          Risk: { grass_pollen: 'High', tree_pollen: 'Moderate', weed_pollen: 'High' },
          Species: {
            Grass: { 'Grass / Poaceae': 208 },
            Others: 3,
            Tree: euTrees({ Birch: 35, Oak: 56, Pine: 23 }),
            Weed: euWeeds(0, 3, 73, 6),
          },
        },
        {
          hour: '2021-06-23T15:00:00.000Z',
          Count: { grass_pollen: 146, tree_pollen: 99, weed_pollen: 75 },
          Risk: { grass_pollen: 'High', tree_pollen: 'Moderate', weed_pollen: 'Moderate' },
          Species: {
            Grass: { 'Grass / Poaceae': 146 },
            Others: 3,
            Tree: euTrees({ Birch: 30, Oak: 49, Pine: 18 }),
            Weed: euWeeds(1, 2, 66, 5),
          },
        },
      ],
    );
  },

  'forecast-pollen__jeedom-airquality__2.json': async () => {
    // CRLF, a leading blank line and trailing blank lines inside the envelope.
    await expectPollenForecast(
      'forecast_48h',
      wrapped('forecast-pollen__jeedom-airquality__2.json', 48.532, 7.713),
      {
        hours: 48,
        first: '2021-06-22T20:00:00.000Z',
        last: '2021-06-24T19:00:00.000Z',
        stepHours: 1,
        species: 15,
      },
      [
        {
          hour: '2021-06-22T20:00:00.000Z',
          Count: { grass_pollen: 190, tree_pollen: 101, weed_pollen: 101 },
          Risk: { grass_pollen: 'High', tree_pollen: 'Moderate', weed_pollen: 'High' },
          Species: {
            Grass: { 'Grass / Poaceae': 190 },
            Others: 2,
            Tree: euTrees({ Birch: 31, Oak: 49, Pine: 20 }),
            Weed: euWeeds(1, 4, 87, 8),
          },
        },
        {
          hour: '2021-06-24T19:00:00.000Z',
          Count: { grass_pollen: 208, tree_pollen: 111, weed_pollen: 111 },
          Risk: { grass_pollen: 'High', tree_pollen: 'Moderate', weed_pollen: 'High' },
          Species: {
            Grass: { 'Grass / Poaceae': 208 },
            Others: 3,
            Tree: euTrees({ Birch: 34, Oak: 55, Pine: 21 }),
            Weed: euWeeds(2, 3, 97, 7),
          },
        },
      ],
    );
  },

  'forecast-pollen__jeedom-airquality__3.json': async () => {
    await expectPollenForecast(
      'forecast_48h',
      wrapped('forecast-pollen__jeedom-airquality__3.json', 48.532, 7.713),
      {
        hours: 48,
        first: '2021-07-06T06:00:00.000Z',
        last: '2021-07-08T05:00:00.000Z',
        stepHours: 1,
        species: 15,
      },
      [
        {
          hour: '2021-07-06T06:00:00.000Z',
          Count: { grass_pollen: 96, tree_pollen: 19, weed_pollen: 153 },
          Risk: { grass_pollen: 'High', tree_pollen: 'Low', weed_pollen: 'High' },
          Species: {
            Grass: { 'Grass / Poaceae': 96 },
            Others: 9,
            Tree: euTrees({ Birch: 4, Oak: 6, Pine: 2 }),
            Weed: euWeeds(3, 3, 136, 9),
          },
        },
        {
          hour: '2021-07-08T05:00:00.000Z',
          Count: { grass_pollen: 61, tree_pollen: 0, weed_pollen: 149 },
          Risk: { grass_pollen: 'High', tree_pollen: 'Low', weed_pollen: 'High' },
          Species: {
            Grass: { 'Grass / Poaceae': 61 },
            Others: 0,
            Tree: euTrees(),
            Weed: euWeeds(1, 4, 134, 10),
          },
        },
      ],
    );
  },

  'forecast-pollen__jeedom-airquality__4.json': async () => {
    await expectPollenForecast(
      'forecast_48h',
      wrapped('forecast-pollen__jeedom-airquality__4.json', 48.532, 7.713),
      {
        hours: 48,
        first: '2021-07-26T06:00:00.000Z',
        last: '2021-07-28T05:00:00.000Z',
        stepHours: 1,
        species: 15,
      },
      [
        {
          hour: '2021-07-26T06:00:00.000Z',
          Count: { grass_pollen: 20, tree_pollen: 0, weed_pollen: 49 },
          Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Moderate' },
          Species: {
            Grass: { 'Grass / Poaceae': 20 },
            Others: 2,
            Tree: euTrees(),
            Weed: euWeeds(0, 0, 45, 2),
          },
        },
        {
          hour: '2021-07-28T05:00:00.000Z',
          Count: { grass_pollen: 23, tree_pollen: 0, weed_pollen: 60 },
          Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Moderate' },
          Species: {
            Grass: { 'Grass / Poaceae': 23 },
            Others: 3,
            Tree: euTrees(),
            Weed: euWeeds(0, 0, 55, 2),
          },
        },
      ],
    );
  },

  'forecast-pollen__jeedom-airquality__5.json': async () => {
    // 47 items, not 48; the first has Nettle 255 beside a weed count of 55: both as sent.
    await expectPollenForecast(
      'forecast_48h',
      wrapped('forecast-pollen__jeedom-airquality__5.json', 48.532, 7.713),
      {
        hours: 47,
        first: '2021-07-25T14:00:00.000Z',
        last: '2021-07-27T12:00:00.000Z',
        stepHours: 1,
        species: 15,
      },
      [
        {
          hour: '2021-07-25T14:00:00.000Z',
          Count: { grass_pollen: 22, tree_pollen: 0, weed_pollen: 55 },
          Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Moderate' },
          Species: {
            Grass: { 'Grass / Poaceae': 22 },
            Others: 2,
            Tree: euTrees(),
            Weed: euWeeds(0, 1, 255, 2),
          },
        },
        {
          hour: '2021-07-27T12:00:00.000Z',
          Count: { grass_pollen: 63, tree_pollen: 0, weed_pollen: 154 },
          Risk: { grass_pollen: 'High', tree_pollen: 'Low', weed_pollen: 'High' },
          Species: {
            Grass: { 'Grass / Poaceae': 63 },
            Others: 3,
            Tree: euTrees(),
            Weed: euWeeds(0, 3, 141, 7),
          },
        },
      ],
    );
  },

  'forecast-pollen-120hr__pollentracker__1.json': async () => {
    const file = 'forecast-pollen-120hr__pollentracker__1.json';
    // Every item stamps `time` and `updatedAt`, the same instant (read off the body here).
    const items = JSON.parse(body(file)) as { time: number; updatedAt: string }[];
    expect(items).toHaveLength(40);
    for (const item of items) expect(item.time * 1000).toBe(Date.parse(item.updatedAt));
    const payload = await expectPollenForecast(
      'forecast_120h',
      wrapped(file, 48.532, 7.713),
      {
        hours: 40,
        first: '2024-11-17T03:00:00.000Z',
        last: '2024-11-22T00:00:00.000Z',
        stepHours: 3,
        species: 12,
      },
      [
        {
          hour: '2024-11-17T03:00:00.000Z',
          Count: { grass_pollen: 0, tree_pollen: 0, weed_pollen: 8 },
          Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Low' },
          Species: {
            Grass: { 'Grass / Poaceae': 0 },
            Others: 0,
            Tree: naTrees(),
            Weed: { Ragweed: 8 },
          },
        },
        {
          hour: '2024-11-22T00:00:00.000Z',
          Count: { grass_pollen: 0, tree_pollen: 0, weed_pollen: 10 },
          Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Low' },
          Species: {
            Grass: { 'Grass / Poaceae': 0 },
            Others: 0,
            Tree: naTrees(),
            Weed: { Ragweed: 10 },
          },
        },
      ],
    );
    expect(new Set(payload.records.map((r) => r.timezone))).toEqual(
      new Set(['America/Los_Angeles']),
    );
  },

  'forecast-pollen-120hr__pollentracker__2.json': async () => {
    await expectPollenForecast(
      'forecast_120h',
      wrappedElement('forecast-pollen-120hr__pollentracker__2.json', 48.532, 7.713),
      {
        hours: 1,
        first: '2024-07-08T09:00:00.000Z',
        last: '2024-07-08T09:00:00.000Z',
        stepHours: 3,
        species: 12,
      },
      [
        {
          hour: '2024-07-08T09:00:00.000Z',
          Count: { grass_pollen: 10, tree_pollen: 0, weed_pollen: 27 },
          Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Moderate' },
          Species: {
            Grass: { 'Grass / Poaceae': 10 },
            Others: 0,
            Tree: naTrees(),
            Weed: { Ragweed: 27 },
          },
        },
      ],
    );
  },

  // --- No data ------------------------------------------------------------------------------

  'error-200-nodata__ha-issue-52638__1.json': async () => {
    // HTTP 200 with "Data not available!" and `data: []`: NO_DATA, not retried, nothing stored.
    serving = body('error-200-nodata__ha-issue-52638__1.json');
    const error = await refusal(client.pollenLatestByLatLng({ lat: 55.7482, lng: 37.6177 }));
    expect(lastPath()).toBe('/latest/pollen/by-lat-lng');
    expect(error.code).toBe('NO_DATA');
    expect(error.retryable).toBe(false);
    expect(error.httpStatus).toBe(200);
    const fetchedAt = nextFetch();
    const written = await processSnapshot({
      data: {
        runId: 1,
        locationId: pollenAt.locationId,
        product: 'latest',
        dataset: 'pollen',
        fetchedAt: fetchedAt.toISOString(),
      },
    } as Job<SnapshotJobData>);
    expect(written).toBe(0);
    expect(await storedPollen('latest', fetchedAt)).toEqual({ types: [], species: [] });
  },

  // --- Weather ------------------------------------------------------------------------------

  'weather-latest__docs-example-weather-alert-backend__1.json': async () => {
    // The docs example is imperial (81.87 °F) although envdata asks for units=si: the client
    // keeps the values as sent, and normalize refuses the record as implausible in SI.
    const { payload, record } = await expectWeatherRefused(
      body('weather-latest__docs-example-weather-alert-backend__1.json'),
      'temperature 81.87 is outside the plausible SI range [-100, 70]',
    );
    // `data.lat` / `data.lng` are the strings "12" and "77".
    expect({ lat: payload.lat, lng: payload.lng }).toEqual({ lat: 12, lng: 77 });
    expect(record).toEqual({
      at: new Date('2020-10-08T10:41:24.000Z'),
      temperature: 81.87,
      apparentTemperature: 88.64,
      dewPoint: 75.35,
      humidity: 0.81,
      pressure: 1005.9,
      windSpeed: 3.19,
      windGust: 3.19,
      windBearing: 72,
      cloudCover: 0.83,
      visibility: 10,
      uvIndex: undefined,
      ozone: 267.3,
      precipIntensity: undefined,
      precipProbability: undefined,
      precipType: undefined,
      summary: 'Humid',
      icon: 'clear-day',
    });
    expect(weatherShareUnits(payload as never)).toEqual({
      humidity: 'fraction',
      cloudCover: 'fraction',
      precipProbability: 'only-zeros',
    });
  },

  'weather-latest__docs-example-react-comment__1.json': async () => {
    // A data object fragment, wrapped. The later revision of the same docs record: humidity 81
    // (percent) beside cloudCover 0.83 and precipProbability 0.02 (fractions). Each field
    // tells its own unit; the record is still refused for its °F temperature.
    const { payload, record } = await expectWeatherRefused(
      wrapped('weather-latest__docs-example-react-comment__1.json', 12, 77),
      'temperature 81.87 is outside the plausible SI range [-100, 70]',
    );
    expect(record).toEqual({
      at: new Date('2020-10-08T10:41:24.000Z'),
      temperature: 81.87,
      apparentTemperature: 88.64,
      dewPoint: 75.35,
      humidity: 81,
      pressure: 1005.9,
      windSpeed: 3.19,
      windGust: 3.19,
      windBearing: 72,
      cloudCover: 0.83,
      visibility: 10,
      uvIndex: 0,
      ozone: undefined,
      precipIntensity: 0.0072,
      precipProbability: 0.02,
      precipType: 'rain',
      summary: 'Humid',
      icon: 'clear-day',
    });
    expect(weatherShareUnits(payload as never)).toEqual({
      humidity: 'percent',
      cloudCover: 'fraction',
      precipProbability: 'fraction',
    });
  },

  'weather-latest__breathe-easy__1.json': async () => {
    const raw = body('weather-latest__breathe-easy__1.json');
    // humidity 92 says percent; cloudCover 1 cannot tell by itself ("overcast clouds" means a
    // fraction of 1.0, but the rule never reads one field from another or from the summary).
    const expected: Omit<StoredWeather, 'cloud_cover_fraction'> = {
      valid_at: new Date('2023-04-09T02:00:00.000Z'),
      stamped_at_fetch: false,
      // Imperial as sent (45.63 °F…): plausible in SI, so stored as the number sent.
      temperature_c: 45.63,
      apparent_temperature_c: 41.13,
      dew_point_c: 43.45,
      humidity_fraction: 0.92,
      pressure_hpa: 1030,
      wind_speed_ms: 8.7,
      wind_gust_ms: 18.12,
      wind_bearing_deg: 39,
      visibility_km: 10,
      uv_index: 0,
      ozone_du: 107.29,
      precip_intensity_mm_h: 0,
      precip_probability_fraction: null,
      precip_type: null,
      summary: 'overcast clouds',
      icon: 'cloudy',
      icon_raw: 'cloudy',
    };

    // Nothing remembered for this source: cloudCover 1 is set aside, the rest lands.
    // (The docs examples above taught this source's units: forgotten, and a new worker.)
    await sql`delete from envdata.share_unit where dataset = 'weather'`.execute(wh.app.db);
    processSnapshot = snapshotProcessor();
    const first = await latestWeather(raw);
    expect({ lat: first.payload.lat, lng: first.payload.lng }).toEqual({ lat: 37, lng: -77 });
    expect(weatherShareUnits(first.payload as never)).toEqual({
      humidity: 'percent',
      cloudCover: 'cannot-tell',
      precipProbability: 'only-zeros',
    });
    const setAside = normalizeWeather(first.payload as never);
    expect(setAside.quarantined).toHaveLength(1);
    expect(setAside.quarantined[0]?.reason).toMatch(/^share unit unknown: cloudCover 1 not landed/);
    expect(setAside.quarantined[0]?.reason).not.toMatch(/humidity/);
    expect(first.written).toBe(1);
    expect(await storedWeather('latest', first.fetchedAt)).toEqual([
      { ...expected, cloud_cover_fraction: null },
    ]);
    // The unit humidity told is remembered; the one cloudCover could not tell is not.
    expect(await readShareUnits(wh.app.db, 'weather', 'latest')).toEqual({ humidity: 'percent' });

    // cloudCover remembered as a fraction for this source: 1 is 1.0 (never 0.01).
    await recordShareUnits(wh.app.db, 'weather', 'latest', { cloudCover: 'fraction' });
    const remembered = normalizeWeather(first.payload as never, undefined, {
      cloudCover: 'fraction',
    });
    expect(remembered.quarantined).toEqual([]);
    const second = await latestWeather(raw);
    expect(second.written).toBe(1);
    expect(await storedWeather('latest', second.fetchedAt)).toEqual([
      { ...expected, cloud_cover_fraction: 1 },
    ]);
  },

  'weather-latest__corsair__1.json': async () => {
    // Synthetic: top-level lat/lng/timezone beside `data`. It parses; its dewPoint 69.2 (°F
    // like the rest) is implausible in SI, so the record is refused with that reason.
    const { payload, record } = await expectWeatherRefused(
      body('weather-latest__corsair__1.json'),
      'dewPoint 69.2 is outside the plausible SI range [-100, 60]',
    );
    expect({ lat: payload.lat, lng: payload.lng }).toEqual({ lat: 40, lng: -77 });
    expect(record).toMatchObject({
      at: new Date('2022-07-05T05:46:40.000Z'),
      temperature: 70,
      dewPoint: 69.2,
      humidity: 95,
      cloudCover: 1,
      precipProbability: 58,
    });
    expect(weatherShareUnits(payload as never)).toEqual({
      humidity: 'percent',
      cloudCover: 'cannot-tell',
      precipProbability: 'percent',
    });
  },

  'weather-forecast__docs-example-react-mock__1.json': async () => {
    // `message: ""` is the app's placeholder: an empty message is no refusal, the body lands.
    // Its values are SI; `data.lat` / `data.lng` are the strings "22" and "112".
    const { payload, written, fetchedAt } = await snapshot(
      'weather',
      'forecast_72h',
      body('weather-forecast__docs-example-react-mock__1.json'),
    );
    expect(stub.requests.at(-1)?.query.get('units')).toBe('si');
    expect(payload.rejected).toEqual([]);
    expect({ lat: payload.lat, lng: payload.lng }).toEqual({ lat: 22, lng: 112 });
    expect(written).toBe(1);
    expect(await storedWeather('forecast_72h', fetchedAt)).toEqual([
      {
        valid_at: new Date('2020-12-14T08:00:00.000Z'),
        stamped_at_fetch: false,
        temperature_c: 14.29,
        apparent_temperature_c: 14.29,
        dew_point_c: 11.32,
        humidity_fraction: 0.82,
        pressure_hpa: 1018.2,
        wind_speed_ms: 4.76,
        wind_gust_ms: 5.6,
        wind_bearing_deg: 31,
        cloud_cover_fraction: 0.98,
        visibility_km: 16.093,
        uv_index: 1,
        ozone_du: 234,
        precip_intensity_mm_h: 0.0072,
        precip_probability_fraction: 0.02,
        precip_type: 'rain',
        summary: 'Humid and overcast',
        icon: 'clear',
        icon_raw: 'clear-day',
      },
    ]);
  },

  'weather-history__corsair__1.json': async () => {
    // Synthetic: `message` and `data` as a flat array (accepted). Two records at :46:40 past
    // 05 and 06 UTC; the second's temperature 71 is implausible in SI and is quarantined.
    const window = {
      from: new Date('2022-07-05T05:00:00Z'),
      to: new Date('2022-07-05T07:00:00Z'),
    };
    serving = body('weather-history__corsair__1.json');
    const payload = await weatherDataset.fetchHistory(client, {
      location: weatherAt,
      window,
      options: { speciesRisk: false },
    });
    expect(lastPath()).toBe('/weather/history/by-lat-lng');
    expect(stub.requests.at(-1)?.query.get('units')).toBe('si');
    expect(payload.complete).toBe(true);
    expect(payload.rejected).toEqual([]);
    expect({ lat: payload.lat, lng: payload.lng }).toEqual({ lat: 40, lng: -77 });
    const facts = weatherDataset.toFacts(payload, window);
    const temperature71 = 'temperature 71 is outside the plausible SI range [-100, 70]';
    expect(facts.quarantined.map((q) => [q.reason, q.hour])).toEqual([
      [temperature71, new Date('2022-07-05T06:00:00Z')],
    ]);

    const landing = await wh.landingOf('weather', weatherAt.locationId, window, payload.rawBody);
    await new FactWriter(wh.app.db, { archiveRaw: false }).land([{ ...landing, facts }]);
    const { rows } = await sql<
      Omit<StoredWeather, 'valid_at' | 'stamped_at_fetch'> & { observed_at: Date }
    >`
      select observed_at, ${WEATHER_COLUMNS} from envdata.weather_hourly
      where location_id = ${weatherAt.locationId}
        and observed_at >= ${window.from} and observed_at < ${window.to}`.execute(wh.app.db);
    expect(rows).toEqual([
      {
        observed_at: new Date('2022-07-05T05:00:00Z'),
        temperature_c: 70,
        apparent_temperature_c: null,
        dew_point_c: null,
        humidity_fraction: 0.95,
        pressure_hpa: null,
        wind_speed_ms: null,
        wind_gust_ms: null,
        wind_bearing_deg: null,
        cloud_cover_fraction: null,
        visibility_km: null,
        uv_index: null,
        ozone_du: null,
        precip_intensity_mm_h: null,
        precip_probability_fraction: null,
        precip_type: null,
        summary: null,
        icon: null,
        icon_raw: null,
      },
    ]);
    const quarantined = await wh.app.db
      .selectFrom('quarantine')
      .select(['reason', 'observed_at'])
      .where('chunk_id', '=', landing.chunkId)
      .execute();
    expect(quarantined).toEqual([
      { reason: temperature71, observed_at: new Date('2022-07-05T06:00:00Z') },
    ]);
  },

  // --- Geocoding ----------------------------------------------------------------------------

  'geocode-place__corsair__1.json': async () => {
    // Synthetic: string coordinates (read as numbers) and flat address fields, which are not
    // the documented `address{…}` object: they are not read.
    serving = body('geocode-place__corsair__1.json');
    const payload = await client.geocode({ place: 'new york' });
    expect(lastPath()).toBe('/geocode/by-place');
    expect(payload.rejected).toEqual([]);
    expect(payload.records).toEqual([
      {
        lat: 40.7127281,
        lng: -74.0060152,
        label: undefined,
        countryCode: undefined,
        countryName: undefined,
        state: undefined,
        city: undefined,
        postalCode: undefined,
      },
    ]);
  },

  // --- v3 endpoints (envdata calls none of them) --------------------------------------------

  'v3-pollen-history__cece-drnimbusrain__1.json': async () => {
    await expectV3HistoryRefused(body('v3-pollen-history__cece-drnimbusrain__1.json'));
  },

  'v3-pollen-history__cece-ufs__1.json': async () => {
    await expectV3HistoryRefused(body('v3-pollen-history__cece-ufs__1.json'));
  },

  'v3-pollen-latest__corsair__1.json': async () => {
    // Synthetic, and in the legacy shape (message, lat/lng, data[]): the legacy parser takes
    // it. Of its two stamps `time` (2022-07-05T05:46:40Z) is preferred over `updatedAt`.
    await expectLatestPollen(
      body('v3-pollen-latest__corsair__1.json'),
      {
        hour: '2022-07-05T05:00:00.000Z',
        Count: { grass_pollen: 0, tree_pollen: 4, weed_pollen: 1 },
        Risk: { grass_pollen: 'Low', tree_pollen: 'Low', weed_pollen: 'Low' },
      },
      { lat: 41.3874, lng: 2.1686 },
    );
  },
};

/**
 * A v3 history body (no `message`, no `status`, `timestamp` stamps) answered to the legacy
 * history endpoint envdata calls: refused whole as MALFORMED_RESPONSE, for its envelope.
 */
async function expectV3HistoryRefused(raw: string) {
  serving = raw;
  const error = await refusal(
    pollenDataset.fetchHistory(client, {
      location: pollenAt,
      window: { from: new Date('2026-09-23T00:00:00Z'), to: new Date('2026-09-25T00:00:00Z') },
      options: { speciesRisk: false },
    }),
  );
  expect(lastPath()).toBe('/history/pollen/by-lat-lng');
  expect(error.code).toBe('MALFORMED_RESPONSE');
  expect(error.details).toMatchObject({
    reason: 'the envelope has neither a message nor a status string',
  });
}

describe('the recorded bodies of the real service (test/fixtures/real-bodies)', () => {
  it('has one case per body file, and INDEX.md describes each', () => {
    const files = readdirSync(DIR)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(files).toHaveLength(32);
    expect(Object.keys(CASES).sort()).toEqual(files);
    const index = body('INDEX.md');
    expect(files.filter((f) => !index.includes(`\`${f}\``))).toEqual([]);
  });

  it.each(Object.keys(CASES))('%s', async (file) => {
    await CASES[file]!();
  });
});
