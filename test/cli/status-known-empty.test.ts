import { describe, expect, it, beforeAll } from 'vitest';
import { statusJson } from '../../src/cli/json/status-json.js';
import { FactWriter } from '../../src/landing/fact-writer.js';
import type { ChunkLanding } from '../../src/ledger/landing-decision.js';
import type { Dataset } from '../../src/types.js';
import { NO_FACTS } from '../../src/warehouse/fact-table.js';
import { hoursBetween, pollenHistoryBody, weatherHistoryBody } from '../fixtures/payload-bodies.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

// São Paulo: the service has no pollen data for it, and answered "Data not available!" for
// every hour asked (the last two days, as a nightly sync would have); its weather landed.
const wh = useTestWarehouse();
const HOUR = 3_600_000;
const vars = () =>
  wh.env.cliEnv({ LOG_FORMAT: 'json', LOG_LEVEL: 'warn', ENVDATA_FRESHNESS_MAX_LAG: '36h' });

async function land(locationId: number, dataset: Dataset, noData: boolean) {
  const end = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
  const window = { from: new Date(end - 48 * HOUR), to: new Date(end) };
  const hours = hoursBetween(window.from.toISOString(), window.to.toISOString());
  const body = dataset === 'pollen' ? pollenHistoryBody(hours) : weatherHistoryBody(hours);
  const landing = await wh.landingOf(dataset, locationId, window, body, { expected: window });
  const answer: ChunkLanding = noData
    ? { ...landing, outcome: 'no_data', facts: NO_FACTS, rawBody: undefined }
    : landing;
  await new FactWriter(wh.app.db, { archiveRaw: false }).land([answer]);
}

beforeAll(async () => {
  const saoPaulo = await wh.addLocation({
    name: 'São Paulo',
    lat: -23.5505,
    lng: -46.6333,
    countryCode: 'BR',
  });
  await land(saoPaulo.locationId, 'pollen', true);
  await land(saoPaulo.locationId, 'weather', false);
});

describe('envdata status, a dataset the service has no data for', () => {
  it('shows it known empty, not stale, and --check passes', async () => {
    const result = await runCliInProcess(['status', '--check'], vars());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('freshness of'));
    expect(lines[at]).toBe('freshness of 1 location(s), stale beyond 36 h: none stale');
    expect(lines[at + 2]).toMatch(
      /^ {2}ok {5}São Paulo {2}known empty {2,}\d[^-]* {2}\d{4}-\d\d-\d\d \d\d:00 /,
    );
  });

  it('--json says knownEmpty, with the lag of the last "no data" answer', async () => {
    const result = await runCliInProcess(['status', '--json'], vars());
    expect(result.code, result.stderr).toBe(0);
    const [row] = statusJson.parse(JSON.parse(result.stdout)).freshness;
    expect(row).toMatchObject({ name: 'São Paulo', stale: false });
    expect(row!.datasets.pollen).toEqual({
      lastHour: null,
      lagHours: expect.any(Number),
      knownEmpty: true,
      stale: false,
    });
    expect(row!.datasets.pollen.lagHours).toBeLessThanOrEqual(2);
    expect(row!.datasets.weather).toMatchObject({ knownEmpty: false, stale: false });
  });
});
