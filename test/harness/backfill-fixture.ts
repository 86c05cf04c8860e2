import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import type { QueueBackend } from '../../src/config/config.js';
import type { Environment } from '../../src/config/load-config.js';
import type { RunProgress } from '../../src/ledger/run-progress.js';
import type { Location } from '../../src/locations/location.js';
import { planRun, type RunRequest } from '../../src/planner/plan-run.js';
import type { BackfillRequest } from '../../src/runs/start-backfill.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/start-simulator.js';
import type { SimulatorOptions } from '../../src/simulator/simulator-options.js';
import { BERLIN, BRISBANE } from '../fixtures/places.js';
import { addPointLocation } from './add-point-location.js';
import { useTestEnvironment, type TestEnvironment } from './test-environment.js';
import { workRun } from './work-run.js';

/** What a backfill asks for but where: datasets, `[from, to)` and the window. */
export type BackfillRange = Omit<BackfillRequest, 'locations'>;

/**
 * Both datasets over `[from, to)` in 48-hour windows, the service's own; `over` replaces any of
 * it. A string is a UTC instant or day (`'2024-06-02'` is its midnight UTC). From 2024-06-02 the
 * windows are on the 48-hour grid: 2024-06-02 to 2024-06-06 is two windows, so 2 datasets ×
 * 2 locations × 2 windows = 8 chunks at the fixture's locations.
 */
export function backfillRange(
  from: string | Date,
  to: string | Date,
  over: Partial<BackfillRange> = {},
): BackfillRange {
  return {
    datasets: ['pollen', 'weather'],
    from: new Date(from),
    to: new Date(to),
    windowHours: 48,
    ...over,
  };
}

/** `backfillRange` of `windows` 48-hour windows from `day` (a day on the 48-hour grid). */
export function backfillWindows(
  day: string,
  windows: number,
  over: Partial<BackfillRange> = {},
): BackfillRange {
  const from = new Date(day);
  return backfillRange(from, new Date(from.getTime() + windows * 48 * 3_600_000), over);
}

/** The arguments of `envdata backfill` of `dataset` at `location` over `[from, to)`, then `flags`. */
export function backfillArgs(
  dataset: string,
  location: string,
  from: string,
  to: string,
  ...flags: string[]
): string[] {
  return [
    'backfill',
    '--dataset',
    dataset,
    '--location',
    location,
    '--from',
    from,
    '--to',
    to,
    ...flags,
  ];
}

export interface BackfillFixture {
  readonly env: TestEnvironment;
  readonly simulator: RunningSimulator;
  readonly app: App;
  readonly locations: readonly Location[];
  /** Another app on the same database and queue (a second worker process, say). */
  newApp(extra?: Environment): App;
  /** A digest of every fact row's values (not its source answer's id), to compare warehouses. */
  fingerprint(): Promise<Record<string, string | null>>;
  /** The environment of an `envdata` command on this fixture's database, queue and simulator. */
  cliEnv(extra?: Record<string, string>): Record<string, string>;
  /** `planRun` of a backfill of `request` (at every location of the fixture unless it says). */
  planBackfill(
    request: PlannedBackfill,
    options?: { dryRun?: boolean },
  ): ReturnType<typeof planRun>;
  /**
   * Plans a backfill of `request` with the app's recheck settings, as `envdata backfill` does,
   * and works it to its end with an in-process worker (`workRun`): the run and its last progress.
   */
  workBackfill(
    request: PlannedBackfill,
    options?: { concurrency?: number },
  ): Promise<{ runId: number; progress: RunProgress }>;
}

/** A backfill for `planBackfill`: its range, and where, when and what it rechecks if not the defaults. */
export type PlannedBackfill = BackfillRange &
  Partial<Pick<RunRequest, 'locations' | 'now' | 'recheckMs' | 'noDataRecheckMs'>>;

/**
 * Simulator + database + queue prefix + two locations, all torn down after the file. The queue
 * backend is `options.queueBackend`, else ENVDATA_TEST_QUEUE_BACKEND, else Redis
 * (`useTestEnvironment`).
 */
export function useBackfillFixture(
  simulatorOptions: Partial<SimulatorOptions> = {},
  env: Environment = {},
  options: { queueBackend?: QueueBackend } = {},
): BackfillFixture {
  const testEnv = useTestEnvironment(options);
  const apps: App[] = [];
  let simulator: RunningSimulator | undefined;
  let locations: Location[] = [];
  const configEnv = (extra: Environment = {}) =>
    testEnv.config({
      ENVDATA_BASE_URL: simulator!.url,
      ENVDATA_API_KEY: DEMO_API_KEY,
      ENVDATA_RATE_LIMIT: 'off',
      ENVDATA_RETRY_BASE_MS: '20',
      ENVDATA_JOB_LOCK_MS: '2000',
      ENVDATA_ARCHIVE_RAW: 'false',
      ...env,
      ...extra,
    });
  const planBackfill = (request: PlannedBackfill, options: { dryRun?: boolean } = {}) =>
    planRun(apps[0]!.db, { kind: 'backfill', locations, ...request }, [], options);
  const newApp = (extra?: Environment) => {
    const app = createApp(configEnv(extra));
    apps.push(app);
    return app;
  };
  beforeAll(async () => {
    simulator = await startSimulator({ now: '2024-06-30T12:00:00Z', ...simulatorOptions });
    const app = newApp();
    locations = [await addPointLocation(app.db, BERLIN), await addPointLocation(app.db, BRISBANE)];
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await simulator?.close();
  });
  return {
    env: testEnv,
    get simulator() {
      return simulator!;
    },
    get app() {
      return apps[0]!;
    },
    get locations() {
      return locations;
    },
    newApp,
    cliEnv(extra = {}) {
      return testEnv.cliEnv({
        ENVDATA_BASE_URL: simulator!.url,
        ENVDATA_API_KEY: DEMO_API_KEY,
        ENVDATA_RATE_LIMIT: 'off',
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
        ...extra,
      });
    },
    planBackfill,
    async workBackfill(request, options = {}) {
      const { recheckMs, noDataRecheckMs } = apps[0]!.config.ingest;
      const { runId } = await planBackfill({ recheckMs, noDataRecheckMs, ...request });
      return { runId: runId!, progress: await workRun(apps[0]!, runId, options) };
    },
    async fingerprint() {
      const { rows } = await sql<Record<string, string | null>>`
        select
          (select md5(string_agg((to_jsonb(t) - 'answer_id')::text, '|' order by location_id, observed_at)) from envdata.weather_hourly t) as weather,
          (select md5(string_agg((to_jsonb(t) - 'answer_id')::text, '|' order by location_id, observed_at, pollen_type)) from envdata.pollen_hourly t) as pollen,
          -- By species name, not id: ids are handed out in the order species are first seen.
          (select md5(string_agg(row(t.location_id, t.observed_at, p.category, p.name, t.count, t.risk_level)::text, '|'
            order by t.location_id, t.observed_at, p.category, p.name))
            from envdata.pollen_species_hourly t join envdata.pollen_species p using (species_id)) as species,
          (select count(*)::text from envdata.weather_hourly) as weather_rows,
          (select count(*)::text from envdata.pollen_species_hourly) as species_rows`.execute(
        apps[0]!.db,
      );
      return rows[0]!;
    },
  };
}
