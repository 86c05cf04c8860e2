import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { DEMO_LOCATIONS, runDemo } from '../../src/demo/run-demo.js';
import { resolveLocations } from '../../src/locations/resolve-locations.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/start-simulator.js';
import { startSync } from '../../src/sync/start-sync.js';
import { ensureBiRole } from '../../src/warehouse/ensure-bi-role.js';
import { refreshDailyRollups } from '../../src/warehouse/refresh-daily-rollups.js';
import { lastCompleteHourEnd } from '../../src/windows/tile-windows.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { waitForQueueEmpty } from '../harness/poll-until.js';
import { useTestEnvironment } from '../harness/test-environment.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { docExampleQueries } from './doc-example-queries.js';

const env = useTestEnvironment();
const DAY = 86_400_000;
/** The demo's 92 days of pollen; weather reaches three complete months back (example 8). */
const DAYS = { pollen: 92, weather: 125 } as const;
const examples = docExampleQueries();
let simulator: RunningSimulator;
let app: App;
let bi: pg.Client;

/** A config on the simulator; `ENVDATA_SPECIES_RISK` stays at its default (off) unless given. */
const configFor = (extra: Record<string, string> = {}) =>
  env.config({
    ENVDATA_BASE_URL: simulator.url,
    ENVDATA_API_KEY: DEMO_API_KEY,
    ENVDATA_RATE_LIMIT: 'off',
    ENVDATA_ARCHIVE_RAW: 'false',
    ...extra,
  });

/** Runs `work` with a worker of `on`, then waits for the run and for the snapshot jobs. */
async function withWorker(on: App, work: () => Promise<number | undefined>): Promise<void> {
  const worker = IngestWorker.start(on, { concurrency: 4 });
  try {
    const runId = await work();
    if (runId !== undefined) expect((await waitForRun(on.db, runId)).status).toBe('done');
    await waitForQueueEmpty(on);
  } finally {
    await worker.close();
  }
}

/** A sync as the nightly job runs it, at `now` (the simulator's clock set to it). */
async function syncAt(on: App, now: Date): Promise<void> {
  simulator.setOptions({ now: now.toISOString() });
  try {
    await withWorker(on, async () => (await startSync(on, now)).runId);
  } finally {
    simulator.setOptions({ now: null });
  }
}

/** Example `n` of docs/warehouse-queries.md, run as envdata_bi. */
async function example(n: number): Promise<Record<string, unknown>[]> {
  const query = examples.find((q) => q.number === n);
  if (query === undefined) throw new Error(`docs/warehouse-queries.md has no example ${n}`);
  return (await bi.query<Record<string, unknown>>(query.sql)).rows;
}

beforeAll(async () => {
  simulator = await startSimulator();
  app = createApp(configFor());
  // The demo itself (its four locations, backfilled through ledger, queue and worker) …
  const demo = await runDemo(app, {
    days: DAYS,
    print: () => undefined,
    watch: (runId) => waitForRun(app.db, runId, { timeoutMs: 240_000 }),
  });
  expect(demo.failed).toBe(0);
  const end = lastCompleteHourEnd();
  const [berlin] = await resolveLocations(app.db, ['Berlin']);
  // … a week of Berlin's weather backfilled apart, half a year back: the hole of example 5 …
  await withWorker(app, async () => {
    const start = await startBackfill(app, {
      datasets: ['weather'],
      locations: [berlin!],
      from: new Date(end.getTime() - 200 * DAY),
      to: new Date(end.getTime() - 193 * DAY),
      windowHours: app.config.ingest.historyWindowHours,
    });
    return start.runId;
  });
  // … and the nightly sync of three days ago, whose forecasts have been observed since (example
  // 4). Its refresh ran when its history run ended, perhaps before the forecasts were stored:
  // the refresh after the next run, done here, counts them.
  await syncAt(app, new Date(end.getTime() - 3 * DAY + 20 * 60_000));
  await refreshDailyRollups(app.db);
  await ensureBiRole(app.db);
  bi = new pg.Client({ connectionString: env.databaseUrl });
  await bi.connect();
  await bi.query('set role envdata_bi');
}, 300_000);

afterAll(async () => {
  await bi?.end();
  await app?.close();
  await simulator?.close();
});

describe('the example queries of docs/warehouse-queries.md', () => {
  it('are numbered 1 to 8, each with its SQL', () => {
    expect(examples.map((q) => q.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("name only the demo's locations", () => {
    const demoNames = new Set<string>(DEMO_LOCATIONS.map((l) => l.name));
    for (const query of examples) {
      const named = [...query.sql.matchAll(/name in \(([^)]*)\)|name = '([^']*)'/g)]
        .flatMap((m) => (m[1] ?? `'${m[2]}'`).split(','))
        .map((s) => s.trim().replace(/^'|'$/g, ''));
      for (const name of named) expect(demoNames, `example ${query.number}`).toContain(name);
    }
  });

  it.each(examples.map((q) => [q.number, q.title] as const))(
    'example %i answers as envdata_bi with rows: %s',
    async (n) => {
      const { rows } = await bi.query<{ role: string }>('select current_user as role');
      expect(rows[0]!.role).toBe('envdata_bi');
      expect((await example(n)).length).toBeGreaterThan(0);
    },
  );
});

describe("example 7's high-risk days per species", () => {
  it('are null, not 0, where per-species risk was never fetched', async () => {
    const rows = await example(7);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.high_risk_days)).toEqual(rows.map(() => null));
    expect(rows.every((r) => typeof r.peak_count === 'number')).toBe(true);
  });

  it('are counted once a sync fetched per-species risk', async () => {
    const withRisk = createApp(configFor({ ENVDATA_SPECIES_RISK: 'true' }));
    try {
      // The sync re-reads the last 48 hours, now with each species' risk.
      await syncAt(withRisk, new Date());
    } finally {
      await withRisk.close();
    }
    const rows = await example(7);
    expect(rows.length).toBeGreaterThan(0);
    const { rows: expected } = await bi.query<{
      location_name: string;
      species: string;
      days: number;
    }>(`
      select s.location_name, s.species,
        count(distinct (s.observed_at at time zone l.timezone)::date)
          filter (where s.risk_level in ('High', 'Very High'))::int as days
      from analytics.pollen_species_hourly s join analytics.locations l using (location_id)
      where s.category = 'tree' and s.observed_at >= now() - interval '30 days'
        and l.name in ('Berlin', 'Chicago')
      group by 1, 2`);
    const days = new Map(expected.map((r) => [`${r.location_name} ${r.species}`, r.days]));
    expect(rows.map((r) => [r.location_name, r.species, Number(r.high_risk_days)])).toEqual(
      rows.map((r) => [r.location_name, r.species, days.get(`${r.location_name} ${r.species}`)]),
    );
    expect(rows.every((r) => r.high_risk_days !== null)).toBe(true);
  });
});
