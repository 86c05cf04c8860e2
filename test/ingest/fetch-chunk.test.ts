import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchChunk, type ChunkToFetch } from '../../src/ingest/fetch-chunk.js';
import type { Location } from '../../src/locations/location.js';
import type { PollenSpeciesRow } from '../../src/datasets/pollen/pollen-rows.js';
import { createServiceClient, type ServiceClient } from '../../src/service/service-client.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/start-simulator.js';
import type { Dataset } from '../../src/types.js';
import { NO_FACTS } from '../../src/warehouse/fact-table.js';
import type { ChunkLanding } from '../../src/ledger/landing-decision.js';

// The ingest side of a chunk against the simulator over real HTTP: one call, and the answer
// normalized into fact rows by table before anything reaches the warehouse.

const HOUR = 3_600_000;
const WINDOW = { from: new Date('2024-06-01T00:00:00Z'), to: new Date('2024-06-03T00:00:00Z') };

let sim: RunningSimulator;
let client: ServiceClient;

beforeAll(async () => {
  sim = await startSimulator({ now: '2024-06-30T12:00:00Z' });
  client = createServiceClient({
    baseUrl: sim.url,
    apiKey: DEMO_API_KEY,
    connections: 2,
    connectTimeoutMs: 2_000,
    requestTimeoutMs: 5_000,
  });
});

afterAll(async () => {
  await client.close();
  await sim.close();
});

beforeEach(() => {
  sim.clearFaults();
  sim.resetStats();
});

function location(overrides: Partial<Location> = {}): Location {
  return {
    locationId: 1,
    name: 'Berlin',
    lat: 52.52,
    lng: 13.405,
    countryCode: 'DE',
    timezone: 'Europe/Berlin',
    pollenRegion: 'europe',
    place: null,
    registeredBy: 'coordinates',
    ingestByPlace: false,
    retiredAt: null,
    ...overrides,
  };
}

function chunk(dataset: Dataset, where: Location = location()): ChunkToFetch {
  return {
    chunkId: 7,
    runId: 3,
    dataset,
    location: where,
    window: WINDOW,
    attempts: 1,
    retries: { refetches: 0, refetchAttempts: 2, refetchDelayMs: 1_000, maxAttempts: 5 },
  };
}

function speciesRisks(landing: ChunkLanding): unknown[] {
  const species = landing.facts.tables.find((t) => t.table.name === 'pollen_species_hourly');
  return (species?.rows ?? []).map((r) => (r as PollenSpeciesRow).riskLevel);
}

describe('fetchChunk', () => {
  it('hands over pollen as rows of its two fact tables, with the body for the archive', async () => {
    const landing = await fetchChunk(client, chunk('pollen'));
    expect(landing).toMatchObject({
      chunkId: 7,
      runId: 3,
      dataset: 'pollen',
      locationId: 1,
      outcome: 'rows',
      complete: true,
      httpStatus: 200,
      expected: WINDOW,
      calls: 1,
    });
    const tables = landing.facts.tables.map((t) => [t.table.name, t.rows.length]);
    expect(tables).toEqual([
      ['pollen_hourly', 48 * 3],
      ['pollen_species_hourly', expect.any(Number)],
    ]);
    expect(landing.facts.tables[1]!.rows.length).toBeGreaterThan(48);
    // Per-species risk is not asked for unless configured.
    expect(speciesRisks(landing).every((r) => r === null)).toBe(true);
    expect(JSON.parse(landing.rawBody!)).toMatchObject({ message: 'success' });
    expect(sim.stats().byEndpoint).toEqual({ 'pollen-history-by-lat-lng': 1 });
  });

  it('asks for pollen by place for a location that wants it, and sends speciesRisk when set', async () => {
    const paris = location({
      name: 'Paris',
      lat: 48.8566,
      lng: 2.3522,
      place: 'Paris, France',
      ingestByPlace: true,
    });
    const landing = await fetchChunk(client, chunk('pollen', paris), { speciesRisk: true });
    expect(landing.outcome).toBe('rows');
    expect(sim.stats().byEndpoint).toEqual({ 'pollen-history-by-place': 1 });
    expect(speciesRisks(landing).some((r) => r !== null)).toBe(true);
  });

  it('keeps the rows of a trimmed (206) answer, as an incomplete landing', async () => {
    sim.addFaultScripts([{ endpoint: 'weather-history', kind: 'truncated', count: 1 }]);
    const landing = await fetchChunk(client, chunk('weather'));
    expect(landing).toMatchObject({ outcome: 'rows', complete: false, httpStatus: 206 });
    const [weather] = landing.facts.tables;
    expect(weather!.table.name).toBe('weather_hourly');
    expect(weather!.rows.length).toBeGreaterThan(0);
    expect(weather!.rows.length).toBeLessThan(48);
    // What arrived is the window's first hours, in order.
    weather!.rows.forEach((r, i) => {
      expect(r.observedAt.getTime()).toBe(WINDOW.from.getTime() + i * HOUR);
    });
    expect(landing.rawBody).toBeDefined();
  });

  it('turns "no data" into a done landing with no rows and nothing to archive', async () => {
    const saoPaulo = location({
      lat: -23.5505,
      lng: -46.6333,
      pollenRegion: 'south_america_oceania',
    });
    const landing = await fetchChunk(client, chunk('pollen', saoPaulo));
    expect(landing).toMatchObject({ outcome: 'no_data', complete: true, rawBody: undefined });
    expect(landing.facts).toBe(NO_FACTS);
  });
});
