import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { keyFingerprint } from '../../src/config/key-fingerprint.js';
import type { Location } from '../../src/locations/location.js';
import { startBackfill, type BackfillRequest } from '../../src/runs/start-backfill.js';
import { API_PRODUCTS } from '../../src/simulator/simulator-endpoints.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import type { RunningSimulator } from '../../src/simulator/start-simulator.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { useBackfillFixture, type BackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { runChunks } from './run-chunks.js';
import { factRows, warehouseDigest } from './warehouse-digest.js';

const HOUR_MS = 3_600_000;
const SECOND_KEY = 'second-plan-key-0123456789';
const keys = { [DEMO_API_KEY]: API_PRODUCTS, [SECOND_KEY]: API_PRODUCTS };
const YEAR = { from: new Date('2023-01-01T00:00:00Z'), to: new Date('2024-01-01T00:00:00Z') };
const YEAR_HOURS = (YEAR.to.getTime() - YEAR.from.getTime()) / HOUR_MS;
const HISTORY = { pollen: 'pollen-history-by-lat-lng', weather: 'weather-history' };

// Three warehouses, each with its own database, queue and simulator: a fixed 48 h window against
// a service accepting 48 h (the reference), and a learned window against services accepting 48 h
// and 7 days.
const fixed48 = useBackfillFixture();
const auto48 = useBackfillFixture();
const auto168 = useBackfillFixture({ maxRangeHours: 168, keys });

/** Backfills Berlin over `range` and returns the run's id once it is done. */
async function backfill(
  fx: BackfillFixture,
  range: Pick<BackfillRequest, 'from' | 'to'> & { windowAuto: boolean },
  app: App = fx.app,
): Promise<number> {
  const berlin: Location = fx.locations.find((l) => l.name === 'Berlin')!;
  const start = await startBackfill(app, {
    datasets: ['pollen', 'weather'],
    locations: [berlin],
    windowHours: 48,
    ...range,
  });
  const worker = IngestWorker.start(app, { concurrency: 4 });
  try {
    const progress = await waitForRun(app.db, start.runId!, { timeoutMs: 240_000 });
    expect(progress).toMatchObject({ status: 'done', failed: 0 });
  } finally {
    await worker.close();
  }
  expect(factRows(await warehouseDigest(app.db))).toBeGreaterThanOrEqual(
    start.estimate.expectedRows,
  );
  return start.runId!;
}

/** History calls per dataset, and the 400s among them, since `simulator.resetStats()`. */
function historyCalls(simulator: RunningSimulator) {
  const stats = simulator.stats();
  const of = (id: string) => ({
    calls: stats.byEndpoint[id] ?? 0,
    refused: stats.byEndpointStatus[id]?.['400'] ?? 0,
  });
  return { pollen: of(HISTORY.pollen), weather: of(HISTORY.weather) };
}

/** The learned windows in the ledger, by dataset and key fingerprint. */
async function learnedRows(app: App) {
  return app.db
    .selectFrom('history_window')
    .select(['dataset', 'key_fingerprint', 'base_url', 'accepted_hours', 'refused_hours'])
    .orderBy('key_fingerprint')
    .orderBy('dataset')
    .execute();
}

describe('ENVDATA_HISTORY_WINDOW=auto: the window is learned per key and dataset', () => {
  let fixedCalls: ReturnType<typeof historyCalls>;

  it('the fixed 48 h reference: one call per 48 h window', async () => {
    await backfill(fixed48, { ...YEAR, windowAuto: false });
    fixedCalls = historyCalls(fixed48.simulator);
    const expected = Math.ceil(YEAR_HOURS / 48);
    expect(fixedCalls).toEqual({
      pollen: { calls: expected, refused: 0 },
      weather: { calls: expected, refused: 0 },
    });
  });

  it('against a 7-day service, a year costs at most 1.1 × ⌈8760 / 168⌉ calls per dataset, same warehouse', async () => {
    const runId = await backfill(auto168, { ...YEAR, windowAuto: true });
    const calls = historyCalls(auto168.simulator);
    const bound = Math.floor(1.1 * Math.ceil(YEAR_HOURS / 168));
    expect(bound).toBe(58);
    for (const dataset of ['pollen', 'weather'] as const) {
      expect(calls[dataset].calls).toBeLessThanOrEqual(bound);
      // One refused probe (192 h), split back to 2 × 96 h: it cost that one call.
      expect(calls[dataset].refused).toBe(1);
    }
    console.log(`7-day service, one year, history calls: ${JSON.stringify(calls)}`);

    const chunks = await runChunks(auto168.app.db, runId);
    const hours = (c: (typeof chunks)[number]) =>
      (c.window_to.getTime() - c.window_from.getTime()) / HOUR_MS;
    for (const dataset of ['pollen', 'weather'] as const) {
      const own = chunks.filter((c) => c.dataset === dataset && c.parent_chunk_id === null);
      // The probes, in order: 48, 96, 192 (refused), 144, 168; then 7 days.
      expect(own.slice(0, 5).map(hours)).toEqual([48, 96, 192, 144, 168]);
      expect(new Set(own.slice(5, -1).map(hours))).toEqual(new Set([168]));
      const split = chunks.filter((c) => c.dataset === dataset && c.status === 'split');
      expect(split.map((c) => [hours(c), c.error_code])).toEqual([[192, 'RANGE_TOO_LONG']]);
      const pieces = chunks.filter((c) => c.parent_chunk_id === split[0]!.chunk_id);
      expect(pieces.map(hours)).toEqual([96, 96]);
    }
    expect(await warehouseDigest(auto168.app.db)).toEqual(await warehouseDigest(fixed48.app.db));

    expect(await learnedRows(auto168.app)).toEqual(
      ['pollen', 'weather'].map((dataset) => ({
        dataset,
        key_fingerprint: keyFingerprint(DEMO_API_KEY),
        base_url: auto168.simulator.url,
        accepted_hours: 168,
        refused_hours: 192,
      })),
    );
  });

  it('against a 48 h service, it costs what the fixed window costs plus two refused probes', async () => {
    await backfill(auto48, { ...YEAR, windowAuto: true });
    const calls = historyCalls(auto48.simulator);
    console.log(
      `48 h service, one year: ${JSON.stringify(calls)}, fixed: ${JSON.stringify(fixedCalls)}`,
    );
    for (const dataset of ['pollen', 'weather'] as const) {
      // Probes of 96 h and 72 h are refused, each split back to 48 h pieces.
      expect(calls[dataset].refused).toBe(2);
      expect(calls[dataset].calls).toBeLessThanOrEqual(fixedCalls[dataset].calls + 2);
    }
    expect(await warehouseDigest(auto48.app.db)).toEqual(await warehouseDigest(fixed48.app.db));
  });

  it('a second backfill starts at the learned window: no probe, no refusal', async () => {
    auto48.simulator.resetStats();
    auto168.simulator.resetStats();
    const quarter = {
      from: new Date('2022-01-01T00:00:00Z'),
      to: new Date('2022-04-01T00:00:00Z'),
      windowAuto: true,
    };
    const hours = (quarter.to.getTime() - quarter.from.getTime()) / HOUR_MS;
    const runId = await backfill(auto168, quarter);
    const exact = Math.ceil(hours / 168);
    expect(historyCalls(auto168.simulator)).toEqual({
      pollen: { calls: exact, refused: 0 },
      weather: { calls: exact, refused: 0 },
    });
    const chunks = await runChunks(auto168.app.db, runId);
    expect(chunks[0]!.window_to.getTime() - chunks[0]!.window_from.getTime()).toBe(168 * HOUR_MS);

    await backfill(auto48, quarter);
    expect(historyCalls(auto48.simulator)).toEqual({
      pollen: { calls: Math.ceil(hours / 48), refused: 0 },
      weather: { calls: Math.ceil(hours / 48), refused: 0 },
    });
  });

  it('another key learns from 48 h on its own; the dry run counts both windows', async () => {
    const other = auto168.newApp({ ENVDATA_API_KEY: SECOND_KEY });
    const range = [
      ...['--dataset', 'all', '--location', 'Berlin', '--window', 'auto'],
      ...['--from', '2021-01-01', '--to', '2022-01-01', '--dry-run', '--json'],
    ];
    const plan = async (key: string) => {
      const result = await runCliInProcess(
        ['backfill', ...range],
        auto168.cliEnv({ ENVDATA_API_KEY: key }),
      );
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as {
        request: { windowAuto: boolean };
        plan: {
          calls: number;
          callsAt48h: number;
          byDataset: Record<string, { windowHours: number; chunks: number }>;
        };
      };
    };
    const learned = await plan(DEMO_API_KEY);
    expect(learned.request.windowAuto).toBe(true);
    expect(learned.plan.byDataset.pollen!.windowHours).toBe(168);
    expect(learned.plan.byDataset.weather!.windowHours).toBe(168);
    expect(learned.plan.calls).toBe(2 * Math.ceil(8760 / 168));
    expect(learned.plan.callsAt48h).toBe(2 * Math.ceil(8760 / 48));
    const fresh = await plan(SECOND_KEY);
    expect(fresh.plan.byDataset.pollen!.windowHours).toBe(48);
    expect(fresh.plan.calls).toBe(fresh.plan.callsAt48h);

    const human = await runCliInProcess(
      ['backfill', ...range.filter((a) => a !== '--json')],
      auto168.cliEnv(),
    );
    expect(human.stdout).toContain('pollen: 53 chunk(s) of 168 h (learned)');
    expect(human.stdout).toContain(`${2 * 53} call(s) at the learned window, ${2 * 183} at 48 h`);

    // The second key's first chunks are 48 h, not the first key's 7 days.
    const runId = await backfill(
      auto168,
      {
        from: new Date('2021-06-01T00:00:00Z'),
        to: new Date('2021-06-03T00:00:00Z'),
        windowAuto: true,
      },
      other,
    );
    const chunks = await runChunks(other.db, runId);
    expect(chunks.map((c) => (c.window_to.getTime() - c.window_from.getTime()) / HOUR_MS)).toEqual([
      48, 48,
    ]);
    const rows = await learnedRows(other);
    expect(rows.map((r) => [r.dataset, r.key_fingerprint, r.accepted_hours])).toEqual(
      [
        ['pollen', keyFingerprint(DEMO_API_KEY), 168],
        ['weather', keyFingerprint(DEMO_API_KEY), 168],
        ['pollen', keyFingerprint(SECOND_KEY), 48],
        ['weather', keyFingerprint(SECOND_KEY), 48],
      ].sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
    );
  });

  it('no table of the ledger holds an API key', async () => {
    const { rows: tables } = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = 'envdata' and table_type = 'BASE TABLE'`.execute(auto168.app.db);
    expect(tables.map((t) => t.name)).toContain('history_window');
    for (const { name } of tables) {
      for (const key of [DEMO_API_KEY, SECOND_KEY]) {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from ${sql.table(`envdata.${name}`)} t
          where t::text like ${`%${key}%`}`.execute(auto168.app.db);
        expect(rows[0]!.n, `envdata.${name} holds the key`).toBe(0);
      }
    }
  });
});
