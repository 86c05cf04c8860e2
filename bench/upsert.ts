/**
 * `npm run bench:upsert`: lands a year of hourly weather and pollen for many locations through
 * the real write path (`FactWriter.land` with parsed payloads, several 48 h chunks per call) into
 * a throwaway Postgres database, and prints rows/s next to this machine's ceiling measured in the
 * same run: a server-side `INSERT … SELECT … FROM generate_series` of as many rows into tables
 * identical to the fact tables (columns, types, primary key, checks, FK, yearly partitions).
 *
 * Targets: fresh rows at ≥ 60 % of the ceiling; re-landing identical rows ≥ 2× faster than
 * fresh rows; memory flat as the batch count grows (peaks printed at 25/50/75/100 % of the
 * batches, judged on the live heap they leave behind). A measurement, not a test: it exits 0
 * whether the targets are met or not, and prints misses loudly.
 *
 * @example npm run bench:upsert -- --locations 20 --days 365 --batch 32
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { createApp } from '../src/app.js';
import { configFromDefaults } from '../src/config/load-config.js';
import { createRun } from '../src/ledger/create-run.js';
import { insertChunks, type PlannedChunk } from '../src/ledger/insert-chunks.js';
import { insertLocation } from '../src/locations/insert-location.js';
import type { Location } from '../src/locations/location.js';
import { OTHERS_SPECIES } from '../src/normalize/normalize-pollen.js';
import { factsOfBody } from '../src/datasets/facts-of-body.js';
import type { Dataset, PollenType } from '../src/types.js';
import { withDatabase } from '../src/warehouse/database-url.js';
import { ensureDatabase } from '../src/warehouse/ensure-database.js';
import { FactWriter, type ChunkLanding } from '../src/ingest/fact-writer.js';
import { migrateToLatest } from '../src/warehouse/migrate-to-latest.js';
import { refreshDailyRollups } from '../src/warehouse/refresh-daily-rollups.js';
import type { Database } from '../src/warehouse/schema.js';
import { SpeciesIds } from '../src/warehouse/species-ids.js';

const HOUR_MS = 3_600_000;
/** The pipeline's history window (ENVDATA_HISTORY_WINDOW default). */
const CHUNK_HOURS = 48;
const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const TARGET_SHARE_OF_CEILING = 0.6;
const TARGET_RELAND_SPEEDUP = 2;
/**
 * "Flat": what the batches leave on the heap (live heap after a full GC, after the last batch
 * against before the first) stays under this, however many batches ran.
 */
const FLAT_LIVE_HEAP_BYTES = 16 * 1_048_576;

interface BenchOptions {
  readonly locations: number;
  readonly days: number;
  /** Chunks per `land()` call. */
  readonly batch: number;
  readonly archiveRaw: boolean;
  readonly keep: boolean;
  readonly from: Date;
}

function readOptions(): BenchOptions {
  const { values } = parseArgs({
    options: {
      locations: { type: 'string', default: '20' },
      days: { type: 'string', default: '365' },
      batch: { type: 'string', default: '32' },
      from: { type: 'string', default: '2023-01-01' },
      'no-archive': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(`usage: npm run bench:upsert -- [options]
  --locations N   locations to register (default 20)
  --days N        days of hourly history per location and dataset (default 365)
  --batch N       48 h chunks per FactWriter.land() call (default 32)
  --from DATE     first UTC day of the history (default 2023-01-01)
  --no-archive    do not archive raw payloads (ENVDATA_ARCHIVE_RAW=false; default archives)
  --keep          keep the database afterwards and print its URL (to try queries on it)
Server: BENCH_DATABASE_URL (a superuser URL), default ${DEFAULT_SERVER_URL}`);
    process.exit(0);
  }
  const int = (name: string, raw: string, max: number): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > max) {
      throw new Error(`--${name} must be a whole number from 1 to ${max}, got "${raw}"`);
    }
    return n;
  };
  const from = new Date(`${values.from}T00:00:00Z`);
  if (Number.isNaN(from.getTime())) throw new Error(`--from must be a date such as 2023-01-01`);
  return {
    locations: int('locations', values.locations, 500),
    days: int('days', values.days, 3_660),
    batch: int('batch', values.batch, 1_000),
    archiveRaw: !values['no-archive'],
    keep: values.keep,
    from,
  };
}

// ---------------------------------------------------------------------------------------------
// Sites and synthetic bodies in the service's recorded shapes (test/service/fixtures/*.json).
// Values are a pure function of (site, hour), so a re-landing sends identical bodies; they follow
// seasons, the day and the weather, so the analytics views show plausible figures.

interface City {
  readonly name: string;
  readonly lat: number;
  readonly lng: number;
  readonly countryCode: string;
}

const CITIES: readonly City[] = [
  { name: 'Berlin', lat: 52.52, lng: 13.405, countryCode: 'DE' },
  { name: 'Paris', lat: 48.8566, lng: 2.3522, countryCode: 'FR' },
  { name: 'London', lat: 51.5074, lng: -0.1278, countryCode: 'GB' },
  { name: 'Madrid', lat: 40.4168, lng: -3.7038, countryCode: 'ES' },
  { name: 'Rome', lat: 41.9028, lng: 12.4964, countryCode: 'IT' },
  { name: 'Vienna', lat: 48.2082, lng: 16.3738, countryCode: 'AT' },
  { name: 'Stockholm', lat: 59.3293, lng: 18.0686, countryCode: 'SE' },
  { name: 'Warsaw', lat: 52.2297, lng: 21.0122, countryCode: 'PL' },
  { name: 'Amsterdam', lat: 52.3676, lng: 4.9041, countryCode: 'NL' },
  { name: 'Zurich', lat: 47.3769, lng: 8.5417, countryCode: 'CH' },
  { name: 'New York', lat: 40.7128, lng: -74.006, countryCode: 'US' },
  { name: 'Chicago', lat: 41.8781, lng: -87.6298, countryCode: 'US' },
  { name: 'Denver', lat: 39.7392, lng: -104.9903, countryCode: 'US' },
  { name: 'Los Angeles', lat: 34.0522, lng: -118.2437, countryCode: 'US' },
  { name: 'Toronto', lat: 43.6532, lng: -79.3832, countryCode: 'CA' },
  { name: 'Mexico City', lat: 19.4326, lng: -99.1332, countryCode: 'MX' },
  { name: 'Sydney', lat: -33.8688, lng: 151.2093, countryCode: 'AU' },
  { name: 'Melbourne', lat: -37.8136, lng: 144.9631, countryCode: 'AU' },
  { name: 'Brisbane', lat: -27.4698, lng: 153.0251, countryCode: 'AU' },
  { name: 'Auckland', lat: -36.8485, lng: 174.7633, countryCode: 'NZ' },
];

/** [name, type, season peak relative to the type's peak (days), season width (days), peak count] */
type Species = readonly [string, PollenType, number, number, number];

const SPECIES_BY_REGION: Readonly<Record<string, readonly Species[]>> = {
  europe: [
    ['Hazel', 'tree', -60, 18, 80],
    ['Alder', 'tree', -50, 18, 120],
    ['Birch', 'tree', 0, 12, 500],
    ['Oak', 'tree', 15, 14, 200],
    ['Pine', 'tree', 35, 15, 150],
    ['Grass / Poaceae', 'grass', 0, 30, 140],
    ['Nettle', 'weed', -40, 40, 60],
    ['Mugwort', 'weed', -5, 12, 40],
    ['Ragweed', 'weed', 15, 12, 70],
  ],
  north_america: [
    ['Cypress / Juniper / Cedar', 'tree', -50, 25, 200],
    ['Maple', 'tree', -35, 14, 150],
    ['Birch', 'tree', -10, 12, 250],
    ['Oak', 'tree', 0, 16, 500],
    ['Pine', 'tree', 30, 15, 200],
    ['Grass / Poaceae', 'grass', 0, 30, 120],
    ['Ragweed', 'weed', 10, 16, 120],
  ],
  australia: [
    ['Acacia', 'tree', -40, 25, 60],
    ['Cypress', 'tree', -35, 20, 80],
    ['Myrtaceae', 'tree', 0, 35, 80],
    ['Pine', 'tree', 20, 15, 100],
    ['Grass / Poaceae', 'grass', 0, 28, 200],
    ['Plantago', 'weed', -20, 30, 30],
    ['Chenopod', 'weed', 0, 25, 20],
  ],
};

const TYPE_PEAK_DAY: Readonly<Record<PollenType, number>> = { tree: 105, grass: 165, weed: 235 };
/** Upper bounds of Low, Moderate, High per type (grains/m³); above is Very High. */
const RISK_BOUNDS: Readonly<Record<PollenType, readonly [number, number, number]>> = {
  tree: [95, 207, 703],
  grass: [29, 60, 341],
  weed: [20, 77, 266],
};

interface Site {
  readonly locationId: number;
  readonly lat: number;
  readonly lng: number;
  readonly seed: number;
  readonly species: readonly Species[];
}

function siteOf(location: Location, index: number): Site {
  const region = location.pollenRegion.startsWith('australia')
    ? 'australia'
    : location.pollenRegion;
  return {
    locationId: location.locationId,
    lat: location.lat,
    lng: location.lng,
    seed: index + 1,
    species: SPECIES_BY_REGION[region] ?? SPECIES_BY_REGION.europe!,
  };
}

/** A deterministic value in [0, 1) for (seed, hour, salt). */
function unit(seed: number, hour: number, salt: number): number {
  let x = Math.imul(seed, 0x9e3779b1) ^ Math.imul(hour, 0x85ebca6b) ^ Math.imul(salt, 0xc2b2ae35);
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return ((x ^ (x >>> 16)) >>> 0) / 4_294_967_296;
}

const round = (value: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};
const clamp = (value: number, min: number, max: number): number =>
  Math.min(max, Math.max(min, value));

interface HourConditions {
  readonly doy: number;
  readonly solarHour: number;
  /** Sine of the sun's elevation, ≤ 0 at night. */
  readonly sun: number;
  /** A slow weather signal in about [-1, 1]: high pressure and dry when positive. */
  readonly synoptic: number;
  readonly rain: number;
}

function conditionsAt(site: Site, hour: number): HourConditions {
  const t = hour / 24;
  const southern = site.lat < 0 ? 182 : 0;
  const doy = (((Math.floor(t) + 4) % 365) + southern) % 365; // 1970-01-01 is day 0, close enough
  const solarHour = ((((hour % 24) + site.lng / 15) % 24) + 24) % 24;
  const declination = 0.409 * Math.sin((2 * Math.PI * (doy - 81)) / 365);
  const latRad = (Math.abs(site.lat) * Math.PI) / 180;
  const sun =
    Math.sin(latRad) * Math.sin(declination) +
    Math.cos(latRad) * Math.cos(declination) * Math.cos((2 * Math.PI * (solarHour - 12)) / 24);
  const synoptic =
    0.6 * Math.sin(2 * Math.PI * (t / 5.3) + site.seed) +
    0.4 * Math.sin(2 * Math.PI * (t / 2.1) + 2 * site.seed);
  const rain = Math.max(0, -synoptic - 0.45 + 0.3 * unit(site.seed, hour, 7));
  return { doy, solarHour, sun, synoptic, rain };
}

function weatherRecord(site: Site, hour: number): Record<string, unknown> {
  const c = conditionsAt(site, hour);
  const absLat = Math.abs(site.lat);
  const season = -Math.cos((2 * Math.PI * (c.doy - 15)) / 365);
  const temperature = round(
    28 -
      0.35 * absLat +
      0.2 * absLat * season +
      4 * Math.sin((2 * Math.PI * (c.solarHour - 9)) / 24) +
      3 * c.synoptic +
      unit(site.seed, hour, 1) -
      0.5,
    1,
  );
  const humidity = round(clamp(0.72 - 0.2 * c.synoptic + c.rain * 0.5, 0.15, 1), 2);
  const cloudCover = round(clamp(0.5 - 0.5 * c.synoptic + c.rain, 0, 1), 2);
  const windSpeed = round(1 + 5 * unit(site.seed, hour, 2) + 3 * Math.max(0, -c.synoptic), 1);
  const precipIntensity = round(c.rain * 4, 2);
  const day = c.sun > 0 ? 'day' : 'night';
  const snowing = precipIntensity > 0 && temperature < 0.5;
  const icon =
    precipIntensity > 0
      ? snowing
        ? 'snow'
        : 'rain'
      : cloudCover > 0.8
        ? 'cloudy'
        : cloudCover > 0.3
          ? `partly-cloudy-${day}`
          : `clear-${day}`;
  const summary =
    precipIntensity > 0
      ? snowing
        ? 'Snow'
        : 'Rain'
      : cloudCover > 0.8
        ? 'Overcast'
        : cloudCover > 0.3
          ? 'Partly Cloudy'
          : 'Clear';
  return {
    time: hour * 3_600,
    summary,
    icon,
    precipIntensity,
    precipProbability: round(clamp(c.rain * 2 + 0.05, 0, 1), 2),
    precipType: precipIntensity > 0 ? (snowing ? 'snow' : 'rain') : undefined,
    temperature,
    apparentTemperature: round(temperature - 0.4 * windSpeed, 1),
    dewPoint: round(temperature - (1 - humidity) * 20, 1),
    humidity,
    pressure: round(1013 + 12 * c.synoptic, 1),
    windSpeed,
    windGust: round(windSpeed * (1.3 + 0.5 * unit(site.seed, hour, 3)), 1),
    windBearing: Math.round(360 * unit(site.seed, Math.floor(hour / 6), 4)),
    cloudCover,
    uvIndex: Math.max(0, Math.round(c.sun * 10 * (1 - cloudCover * 0.6))),
    visibility: precipIntensity > 0 ? 4 : 10,
    ozone: round(300 + 25 * Math.sin((2 * Math.PI * c.doy) / 365), 1),
  };
}

function riskOf(type: PollenType, count: number): string {
  const [low, moderate, high] = RISK_BOUNDS[type];
  return count <= low
    ? 'Low'
    : count <= moderate
      ? 'Moderate'
      : count <= high
        ? 'High'
        : 'Very High';
}

const SPECIES_KEY: Readonly<Record<PollenType, 'Tree' | 'Grass' | 'Weed'>> = {
  tree: 'Tree',
  grass: 'Grass',
  weed: 'Weed',
};

function pollenRecord(site: Site, hour: number): Record<string, unknown> {
  const c = conditionsAt(site, hour);
  const weatherFactor = c.rain > 0 ? 0.3 : 0.8 + 0.3 * c.synoptic;
  const diurnal = 0.4 + 0.6 * Math.max(0, Math.sin((2 * Math.PI * (c.solarHour - 6)) / 24));
  const totals: Record<PollenType, number> = { tree: 0, grass: 0, weed: 0 };
  const species: Record<'Tree' | 'Grass' | 'Weed', Record<string, number>> = {
    Tree: {},
    Grass: {},
    Weed: {},
  };
  const speciesRisk: Record<string, string> = {};
  site.species.forEach(([name, type, offset, width, peak], i) => {
    let d = Math.abs(c.doy - (TYPE_PEAK_DAY[type] + offset));
    d = Math.min(d, 365 - d);
    const season = Math.exp((-0.5 * d * d) / (width * width));
    const count = Math.round(
      peak * season * diurnal * weatherFactor * (0.7 + 0.6 * unit(site.seed, hour, 10 + i)),
    );
    totals[type] += count;
    species[SPECIES_KEY[type]][name] = count;
    speciesRisk[name] = riskOf(type, count);
  });
  const others = Math.round(3 * diurnal * unit(site.seed, hour, 9));
  return {
    time: hour * 3_600,
    Count: { grass_pollen: totals.grass, tree_pollen: totals.tree, weed_pollen: totals.weed },
    Risk: {
      grass_pollen: riskOf('grass', totals.grass),
      tree_pollen: riskOf('tree', totals.tree),
      weed_pollen: riskOf('weed', totals.weed),
    },
    Species: { ...species, Others: others },
    SpeciesRisk: speciesRisk,
  };
}

/** The body of one history request, as the service sends it. */
function historyBody(dataset: Dataset, site: Site, from: Date, to: Date): string {
  const records: Record<string, unknown>[] = [];
  for (let h = from.getTime() / HOUR_MS; h < to.getTime() / HOUR_MS; h++) {
    records.push(dataset === 'weather' ? weatherRecord(site, h) : pollenRecord(site, h));
  }
  return dataset === 'weather'
    ? JSON.stringify({
        status: 'success',
        data: { lat: site.lat, lng: site.lng, history: records },
      })
    : JSON.stringify({ message: 'success', lat: site.lat, lng: site.lng, data: records });
}

// ---------------------------------------------------------------------------------------------
// Landing

interface PlannedRow {
  readonly chunk_id: number;
  readonly location_id: number;
  readonly window_from: Date;
  readonly window_to: Date;
}

interface PhaseTotals {
  rows: number;
  written: number;
  landSeconds: number;
  prepareSeconds: number;
  batches: number;
}

const newTotals = (): PhaseTotals => ({
  rows: 0,
  written: 0,
  landSeconds: 0,
  prepareSeconds: 0,
  batches: 0,
});

interface MemorySample {
  readonly rss: number;
  readonly heapUsed: number;
}

class LandingBench {
  private readonly sites = new Map<number, Site>();
  private readonly memory: MemorySample[] = [];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: BenchOptions,
    sites: readonly Site[],
  ) {
    for (const site of sites) this.sites.set(site.locationId, site);
  }

  get memorySamples(): readonly MemorySample[] {
    return this.memory;
  }

  /**
   * Plans every chunk of the run in the ledger and returns the run id. In the pipeline's order:
   * the feeder materializes a (dataset, location) gap's windows one after the other, so chunk
   * ids, and the batches a worker is handed, run through one location's windows at a time.
   */
  async plan(): Promise<number> {
    const runId = await createRun(this.db, 'backfill', { bench: 'upsert' });
    const end = this.options.from.getTime() + this.options.days * 24 * HOUR_MS;
    const chunks: PlannedChunk[] = [];
    for (const dataset of ['weather', 'pollen'] as const) {
      for (const locationId of this.sites.keys()) {
        for (let t = this.options.from.getTime(); t < end; t += CHUNK_HOURS * HOUR_MS) {
          const to = new Date(Math.min(end, t + CHUNK_HOURS * HOUR_MS));
          chunks.push({ dataset, locationId, from: new Date(t), to });
        }
      }
    }
    for (let i = 0; i < chunks.length; i += 5_000) {
      await insertChunks(this.db, runId, chunks.slice(i, i + 5_000));
    }
    return runId;
  }

  /**
   * Lands every chunk of the run, a batch of weather chunks and a batch of pollen chunks in turn,
   * with a new FactWriter (a new process, cold caches), and samples memory after each batch.
   */
  async landAll(runId: number): Promise<Record<Dataset, PhaseTotals>> {
    const writer = new FactWriter(this.db, { archiveRaw: this.options.archiveRaw });
    const totals: Record<Dataset, PhaseTotals> = { weather: newTotals(), pollen: newTotals() };
    const after: Record<Dataset, number> = { weather: 0, pollen: 0 };
    const open = new Set<Dataset>(['weather', 'pollen']);
    while (open.size > 0) {
      for (const dataset of [...open]) {
        stopIfInterrupted();
        const chunks = await this.nextChunks(runId, dataset, after[dataset]);
        if (chunks.length === 0) {
          open.delete(dataset);
          continue;
        }
        after[dataset] = chunks.at(-1)!.chunk_id;
        const t0 = performance.now();
        const landings = chunks.map((c) => this.landingOf(dataset, c));
        const t1 = performance.now();
        const summary = await writer.land(landings);
        const t2 = performance.now();
        const total = totals[dataset];
        total.prepareSeconds += (t1 - t0) / 1_000;
        total.landSeconds += (t2 - t1) / 1_000;
        total.rows += summary.results.reduce((sum, r) => sum + r.rows, 0);
        total.written += summary.rowsWritten;
        total.batches++;
        const { rss, heapUsed } = process.memoryUsage();
        this.memory.push({ rss, heapUsed });
      }
    }
    return totals;
  }

  /** The next batch of the run's chunks of one dataset: what a worker would be handed. */
  private async nextChunks(runId: number, dataset: Dataset, after: number): Promise<PlannedRow[]> {
    const rows = await this.db
      .selectFrom('chunk')
      .select(['chunk_id', 'location_id', 'window_from', 'window_to'])
      .where('run_id', '=', runId)
      .where('dataset', '=', dataset)
      .where('chunk_id', '>', after)
      .orderBy('chunk_id')
      .limit(this.options.batch)
      .execute();
    return rows.map((r) => ({
      chunk_id: r.chunk_id,
      location_id: r.location_id,
      window_from: new Date(r.window_from),
      window_to: new Date(r.window_to),
    }));
  }

  /** Generates the chunk's body, parsed and normalized as the job hands it to the writer. */
  private landingOf(dataset: Dataset, chunk: PlannedRow): ChunkLanding {
    const site = this.sites.get(chunk.location_id)!;
    const window = { from: chunk.window_from, to: chunk.window_to };
    const body = historyBody(dataset, site, window.from, window.to);
    const base = {
      chunkId: chunk.chunk_id,
      locationId: chunk.location_id,
      window,
      outcome: 'rows' as const,
      complete: true,
      runId: null,
      expected: undefined,
      refetchAllowed: false,
      calls: 1,
      attempts: 1,
      startedAt: new Date(),
      httpStatus: 200,
    };
    return { ...base, dataset, facts: factsOfBody(dataset, body, window), rawBody: body };
  }
}

// ---------------------------------------------------------------------------------------------
// The ceiling: the same number of rows, generated and inserted by the server in one statement.

interface CeilingResult {
  readonly rows: number;
  readonly seconds: number;
}

type FactTable = 'weather_hourly' | 'pollen_hourly' | 'pollen_species_hourly';
type Ceiling = Record<FactTable, CeilingResult>;
const FACT_TABLES: readonly FactTable[] = [
  'weather_hourly',
  'pollen_hourly',
  'pollen_species_hourly',
];

/**
 * Tables identical to the fact tables, in schema `bench_ceiling`: columns, types, defaults,
 * checks, primary key (LIKE … INCLUDING ALL), the same FKs, and the same yearly partitions with
 * their BRIN index (the fact tables' own `ensure_year_partitions`). Plus the (location, species)
 * pairs the bodies carry, so the species ceiling inserts exactly as many rows as the landing.
 */
async function createCeilingTables(
  db: Kysely<Database>,
  years: readonly number[],
  sites: readonly Site[],
): Promise<void> {
  await sql`create schema bench_ceiling`.execute(db);
  for (const table of FACT_TABLES) {
    await sql`
      create table ${sql.table(`bench_ceiling.${table}`)}
        (like ${sql.table(`envdata.${table}`)} including all) partition by range (observed_at)`.execute(
      db,
    );
    await sql`
      alter table ${sql.table(`bench_ceiling.${table}`)} add foreign key (location_id)
        references envdata.location on delete cascade`.execute(db);
    for (const year of years) {
      await sql`select envdata.ensure_year_partitions(${`bench_ceiling.${table}`}::regclass, ${year}::int, ${year}::int)`.execute(
        db,
      );
    }
  }
  await sql`
    alter table bench_ceiling.pollen_species_hourly add foreign key (species_id)
      references envdata.pollen_species`.execute(db);

  const pairs = sites.flatMap((site) => [
    ...site.species.map(([name, type]) => ({ locationId: site.locationId, category: type, name })),
    { locationId: site.locationId, category: 'other' as const, name: OTHERS_SPECIES },
  ]);
  await new SpeciesIds().resolve(
    db,
    pairs.map((p) => ({ category: p.category, species: p.name })),
  );
  await sql`
    create table bench_ceiling.species_pairs as
    select u.location_id, s.species_id
    from unnest(${pairs.map((p) => p.locationId)}::int[],
      ${pairs.map((p) => p.category)}::envdata.species_category[],
      ${pairs.map((p) => p.name)}::text[]) as u(location_id, category, name)
    join envdata.pollen_species s using (category, name)`.execute(db);
}

async function timed(db: Kysely<Database>, query: ReturnType<typeof sql>): Promise<CeilingResult> {
  await checkpoint(db);
  const t0 = performance.now();
  const result = await query.execute(db);
  return {
    rows: Number(result.numAffectedRows ?? 0n),
    seconds: (performance.now() - t0) / 1_000,
  };
}

/**
 * Fills the empty ceiling tables with as many rows as the landing writes, one table at a time,
 * and empties them again.
 */
async function measureCeiling(db: Kysely<Database>, from: Date, to: Date): Promise<Ceiling> {
  const last = new Date(to.getTime() - HOUR_MS);
  const hours = sql`generate_series(${from}::timestamptz, ${last}::timestamptz, interval '1 hour') as h`;
  const risk = sql`(array['Low', 'Moderate', 'High', 'Very High']::envdata.risk_level[])[1 + (x::int % 4)]`;
  const weather = await timed(
    db,
    sql`
      insert into bench_ceiling.weather_hourly
      select l.location_id, h,
        (10 + 8 * sin(x))::real, (9 + 8 * sin(x))::real, (4 + 3 * sin(x))::real,
        (0.6 + 0.3 * sin(x))::real, (1013 + 10 * sin(x))::real, (3 + 2 * sin(x))::real,
        (5 + 3 * sin(x))::real, (180 + 170 * sin(x))::real, (0.5 + 0.4 * sin(x))::real,
        10::real, (2 + 2 * sin(x))::real, (300 + 20 * sin(x))::real,
        (0.5 + 0.5 * sin(x))::real, (0.5 + 0.4 * sin(x))::real,
        case when sin(x) > 0 then 'rain' end, 'Partly Cloudy',
        'partly-cloudy'::envdata.weather_icon, 'partly-cloudy-day'
      from envdata.location l cross join ${hours}
        cross join lateral (select extract(epoch from h) / 3600 + l.location_id as x) v`,
  );
  const pollen = await timed(
    db,
    sql`
      insert into bench_ceiling.pollen_hourly
      select l.location_id, h, t.pollen_type, (100 + 100 * sin(x))::int, ${risk}
      from envdata.location l cross join ${hours}
        cross join unnest(enum_range(null::envdata.pollen_type)) as t(pollen_type)
        cross join lateral (select extract(epoch from h) / 3600 + l.location_id as x) v`,
  );
  const species = await timed(
    db,
    sql`
      insert into bench_ceiling.pollen_species_hourly
      select p.location_id, h, p.species_id, (50 + 50 * sin(x))::int, ${risk}
      from bench_ceiling.species_pairs p cross join ${hours}
        cross join lateral (select extract(epoch from h) / 3600 + p.species_id as x) v`,
  );
  await sql`truncate bench_ceiling.weather_hourly, bench_ceiling.pollen_hourly,
    bench_ceiling.pollen_species_hourly`.execute(db);
  return { weather_hourly: weather, pollen_hourly: pollen, pollen_species_hourly: species };
}

/** Per table, the faster of two ceiling runs: the higher bar for the landing to reach. */
function fastest(a: Ceiling, b: Ceiling): Ceiling {
  const pick = (t: FactTable) => (a[t].seconds <= b[t].seconds ? a[t] : b[t]);
  return {
    weather_hourly: pick('weather_hourly'),
    pollen_hourly: pick('pollen_hourly'),
    pollen_species_hourly: pick('pollen_species_hourly'),
  };
}

/** Starts each timed phase without the previous phase's dirty buffers (needs superuser). */
async function checkpoint(db: Kysely<Database>): Promise<void> {
  await sql`checkpoint`.execute(db).catch(() => undefined);
}

// ---------------------------------------------------------------------------------------------
// Report

const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');
const fmtSec = (s: number): string => s.toFixed(2);
const fmtMb = (bytes: number): string => `${(bytes / 1_048_576).toFixed(0)} MB`;

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const verdict = (ok: boolean): string => (ok ? 'PASS' : '** MISS **');

interface Report {
  readonly options: BenchOptions;
  readonly fresh: Record<Dataset, PhaseTotals>;
  readonly reland: Record<Dataset, PhaseTotals>;
  readonly ceilingRuns: readonly [Ceiling, Ceiling];
  readonly memory: readonly MemorySample[];
  /** After a full GC, just before the first land(). */
  readonly memoryBefore: MemorySample;
  /** heapUsed after a full GC, just after the last land(): what the batches left behind. */
  readonly liveHeapAfter: number;
  readonly rollup: CeilingResult;
  readonly databaseBytes: number;
}

const sumTotals = (p: Record<Dataset, PhaseTotals>): PhaseTotals => ({
  rows: p.weather.rows + p.pollen.rows,
  written: p.weather.written + p.pollen.written,
  landSeconds: p.weather.landSeconds + p.pollen.landSeconds,
  prepareSeconds: p.weather.prepareSeconds + p.pollen.prepareSeconds,
  batches: p.weather.batches + p.pollen.batches,
});
const sumCeilings = (...results: CeilingResult[]): CeilingResult => ({
  rows: results.reduce((n, c) => n + c.rows, 0),
  seconds: results.reduce((n, c) => n + c.seconds, 0),
});
const rate = (rows: number, seconds: number): number => (seconds > 0 ? rows / seconds : 0);

/** Prints the figures; the issue's targets are judged on all rows, each dataset is shown too. */
function printReport(r: Report): void {
  const ceiling = fastest(...r.ceilingRuns);
  const ceilingOf: Record<Dataset | 'all', CeilingResult> = {
    weather: ceiling.weather_hourly,
    pollen: sumCeilings(ceiling.pollen_hourly, ceiling.pollen_species_hourly),
    all: sumCeilings(ceiling.weather_hourly, ceiling.pollen_hourly, ceiling.pollen_species_hourly),
  };
  const fresh = { ...r.fresh, all: sumTotals(r.fresh) };
  const reland = { ...r.reland, all: sumTotals(r.reland) };
  const misses: string[] = [];
  const notes: string[] = [];
  const judge = (part: Dataset | 'all', ok: boolean, what: string): string => {
    if (part === 'all') {
      if (!ok) misses.push(what);
      return verdict(ok);
    }
    if (!ok) notes.push(what);
    return ok ? 'ok' : 'below';
  };
  const label = { weather: 'weather', pollen: 'pollen (types + species)', all: 'all' } as const;
  const rows: string[][] = [];
  for (const t of FACT_TABLES) {
    const c = ceiling[t];
    rows.push([`ceiling ${t}`, fmtInt(c.rows), fmtSec(c.seconds), fmtInt(rate(c.rows, c.seconds))]);
  }
  const c = ceilingOf.all;
  rows.push(['ceiling all', fmtInt(c.rows), fmtSec(c.seconds), fmtInt(rate(c.rows, c.seconds))]);
  for (const part of ['weather', 'pollen', 'all'] as const) {
    const p = fresh[part];
    const share = rate(p.rows, p.landSeconds) / rate(ceilingOf[part].rows, ceilingOf[part].seconds);
    const ok = share >= TARGET_SHARE_OF_CEILING;
    rows.push([
      `fresh ${label[part]}`,
      fmtInt(p.rows),
      fmtSec(p.landSeconds),
      fmtInt(rate(p.rows, p.landSeconds)),
      `${(share * 100).toFixed(0)} % of ceiling`,
      part === 'all' ? `>= ${TARGET_SHARE_OF_CEILING * 100} %` : '',
      judge(part, ok, `fresh ${label[part]} at ${(share * 100).toFixed(0)} % of the ceiling`),
    ]);
  }
  for (const part of ['weather', 'pollen', 'all'] as const) {
    const p = reland[part];
    const f = fresh[part];
    const speedup = rate(p.rows, p.landSeconds) / rate(f.rows, f.landSeconds);
    const ok = speedup >= TARGET_RELAND_SPEEDUP;
    rows.push([
      `re-land ${label[part]}`,
      fmtInt(p.rows),
      fmtSec(p.landSeconds),
      fmtInt(rate(p.rows, p.landSeconds)),
      `${speedup.toFixed(2)}x fresh`,
      part === 'all' ? `>= ${TARGET_RELAND_SPEEDUP}x` : '',
      judge(part, ok, `re-landing ${label[part]} ${speedup.toFixed(2)}x as fast as fresh`),
    ]);
  }
  if (ceilingOf.all.rows !== fresh.all.rows) {
    notes.push(
      `the ceiling inserted ${fmtInt(ceilingOf.all.rows)} rows, the landing ${fmtInt(fresh.all.rows)}`,
    );
  }

  const o = r.options;
  console.log('');
  console.log(
    `envdata bench:upsert — ${o.locations} locations × ${o.days} days from ${o.from.toISOString().slice(0, 10)}, ` +
      `${CHUNK_HOURS} h chunks, batch ${o.batch} chunks per land(), raw archive ${o.archiveRaw ? 'on' : 'off'}`,
  );
  console.log(
    `land() calls: ${fresh.all.batches} fresh + ${reland.all.batches} re-land; ` +
      `rows written: ${fmtInt(fresh.all.written)} fresh, ${fmtInt(reland.all.written)} re-land`,
  );
  const [before, after] = r.ceilingRuns.map((run) => {
    const all = sumCeilings(...FACT_TABLES.map((t) => run[t]));
    return fmtInt(rate(all.rows, all.seconds));
  });
  console.log(
    `ceiling: server-side INSERT … SELECT … FROM generate_series into identical tables, run before ` +
      `(${before} rows/s) and after (${after} rows/s) the landing; the faster run per table is used`,
  );
  console.log('');
  console.log(
    table(['phase', 'rows', 'seconds', 'rows/s', 'vs baseline', 'target', 'result'], rows),
  );

  const prepare = fresh.all.prepareSeconds + reland.all.prepareSeconds;
  const prepareRows = fresh.all.rows + reland.all.rows;
  console.log('');
  console.log(
    `body generation + JSON parsing (not in the landing times): ${fmtSec(prepare)} s ` +
      `for ${fmtInt(prepareRows)} rows (${fmtInt(rate(prepareRows, prepare))} rows/s)`,
  );
  console.log(
    `daily rollup refresh after the run: ${fmtInt(r.rollup.rows)} rollup rows in ${fmtSec(r.rollup.seconds)} s; ` +
      `database size ${fmtMb(r.databaseBytes)}`,
  );

  // Peaks after 25/50/75/100 % of all land() calls (fresh, then re-land). They follow V8's heap
  // sizing (it lets garbage pile up longer as the allocation rate grows), so the verdict is on
  // what survives a full GC after the last batch: memory that grew with the batch count would.
  const n = r.memory.length;
  const quartiles = [0.25, 0.5, 0.75, 1].map((q) => {
    const upTo = r.memory.slice(0, Math.max(1, Math.ceil(n * q)));
    return {
      q,
      batches: upTo.length,
      rss: Math.max(...upTo.map((m) => m.rss)),
      heapUsed: Math.max(...upTo.map((m) => m.heapUsed)),
    };
  });
  const growth = quartiles[3]!.rss / quartiles[1]!.rss - 1;
  const retained = r.liveHeapAfter - r.memoryBefore.heapUsed;
  const flat = retained <= FLAT_LIVE_HEAP_BYTES;
  if (!flat) misses.push(`the batches left ${fmtMb(retained)} on the heap: memory grows with them`);
  console.log('');
  console.log(
    `memory of the loading process, sampled after each land() (before landing: rss ${fmtMb(r.memoryBefore.rss)}, ` +
      `heapUsed ${fmtMb(r.memoryBefore.heapUsed)})`,
  );
  console.log(
    table(
      ['after land() calls', 'batches', 'peak rss', 'peak heapUsed'],
      quartiles.map((q) => [`${q.q * 100} %`, String(q.batches), fmtMb(q.rss), fmtMb(q.heapUsed)]),
    ),
  );
  console.log(
    `peak rss 50 % → 100 % of batches: ${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} % ` +
      `(V8 heap sizing; not a retained-memory measure)`,
  );
  console.log(
    `live heap after a full GC: ${fmtMb(r.memoryBefore.heapUsed)} before the first land(), ` +
      `${fmtMb(r.liveHeapAfter)} after the last of ${n}: ${retained >= 0 ? '+' : ''}${fmtMb(retained)} ` +
      `(target flat: <= +${fmtMb(FLAT_LIVE_HEAP_BYTES)})  ${verdict(flat)}`,
  );

  console.log('');
  for (const note of notes) console.log(`note: ${note} (below the target on its own)`);
  if (misses.length === 0) {
    console.log('ALL TARGETS MET');
  } else {
    console.log('!'.repeat(72));
    for (const miss of misses) console.log(`!! MISSED TARGET: ${miss}`);
    console.log('!'.repeat(72));
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * A full garbage collection, to read the live heap before and after the landing (never between
 * batches, which would flatter the peaks). `--expose-gc` set at run time, so `npm run` needs no
 * node flags.
 */
function fullGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** The signal that asked the bench to stop, if any. */
let interrupted: NodeJS.Signals | undefined;

function stopIfInterrupted(): void {
  if (interrupted) throw new Error(`interrupted by ${interrupted}`);
}

/** Cancels the statements running in the bench's database, so an interrupt is prompt. */
async function cancelQueries(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    await client.query(
      'select pg_cancel_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name],
    );
  } finally {
    await client.end();
  }
}

async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    await client.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const options = readOptions();
  // The bench is an entry point: the one place here that reads the environment.
  const serverUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
  const name = `envdata_bench_${randomBytes(4).toString('hex')}`;
  const url = withDatabase(serverUrl, name);

  let dropped = false;
  const drop = async () => {
    if (dropped || options.keep) return;
    dropped = true;
    await dropDatabase(serverUrl, name);
  };
  // Ctrl-C stops at the next batch (a running statement is cancelled), then cleans up as a
  // failure does; a second one leaves at once.
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(130);
    interrupted = signal;
    console.error(`\n${signal}: stopping, then dropping ${name} (again to leave at once)`);
    void cancelQueries(serverUrl, name).catch(() => undefined);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  await ensureDatabase(url);
  const app = createApp(configFromDefaults({ DATABASE_URL: url, LOG_LEVEL: 'warn' }));
  try {
    const db = app.db;
    console.log(`database ${name}: migrating`);
    await migrateToLatest(db, app.logger);

    const locations: Location[] = [];
    for (let i = 0; i < options.locations; i++) {
      const city = CITIES[i % CITIES.length]!;
      const round = Math.floor(i / CITIES.length);
      locations.push(
        await insertLocation(db, {
          name: round === 0 ? city.name : `${city.name} ${round + 1}`,
          lat: city.lat + round * 0.05,
          lng: city.lng + round * 0.05,
          countryCode: city.countryCode,
          registeredBy: 'coordinates',
        }),
      );
    }
    const sites = locations.map((l, i) => siteOf(l, i));
    const bench = new LandingBench(db, options, sites);
    const runId = await bench.plan();
    const to = new Date(options.from.getTime() + options.days * 24 * HOUR_MS);
    console.log(
      `registered ${locations.length} locations, planned ${CHUNK_HOURS} h chunks up to ${to.toISOString()}`,
    );

    console.log('measuring the ceiling (server-side insert of as many rows), first run');
    const years: number[] = [];
    for (let y = options.from.getUTCFullYear(); y <= to.getUTCFullYear(); y++) years.push(y);
    await createCeilingTables(db, years, sites);
    const ceilingBefore = await measureCeiling(db, options.from, to);
    stopIfInterrupted();

    console.log('landing fresh rows');
    fullGc();
    const { rss, heapUsed } = process.memoryUsage();
    await checkpoint(db);
    const fresh = await bench.landAll(runId);
    console.log('re-landing the identical batches');
    await checkpoint(db);
    const reland = await bench.landAll(runId);
    fullGc();
    const liveAfter = process.memoryUsage().heapUsed;

    stopIfInterrupted();
    console.log('refreshing daily rollups');
    const t0 = performance.now();
    const rollupRows = await refreshDailyRollups(db);
    const rollup = { rows: rollupRows, seconds: (performance.now() - t0) / 1_000 };

    stopIfInterrupted();
    console.log('measuring the ceiling, second run');
    const ceilingAfter = await measureCeiling(db, options.from, to);
    await sql`drop schema bench_ceiling cascade`.execute(db);
    const { rows: size } = await sql<{
      bytes: number;
    }>`select pg_database_size(current_database())::float8 as bytes`.execute(db);

    printReport({
      options,
      fresh,
      reland,
      ceilingRuns: [ceilingBefore, ceilingAfter],
      memory: bench.memorySamples,
      memoryBefore: { rss, heapUsed },
      liveHeapAfter: liveAfter,
      rollup,
      databaseBytes: size[0]?.bytes ?? 0,
    });
    if (options.keep) console.log(`\nkept the database: ${url}`);
  } finally {
    await app.close();
    await drop();
  }
}

main().catch((error: unknown) => {
  if (interrupted) {
    console.error(`stopped by ${interrupted}; the bench database is dropped`);
    process.exitCode = 130;
    return;
  }
  console.error(error);
  process.exitCode = 1;
});
