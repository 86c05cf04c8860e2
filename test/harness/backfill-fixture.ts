import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import type { QueueBackend } from '../../src/config/config.js';
import type { Environment } from '../../src/config/load-config.js';
import { insertLocation } from '../../src/locations/insert-location.js';
import type { Location } from '../../src/locations/location.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/start-simulator.js';
import type { SimulatorOptions } from '../../src/simulator/simulator-options.js';
import { useTestEnvironment, type TestEnvironment } from './test-environment.js';

export interface BackfillFixture {
  readonly env: TestEnvironment;
  readonly simulator: RunningSimulator;
  readonly app: App;
  readonly locations: readonly Location[];
  /** Another app on the same database and queue (a second worker process, say). */
  newApp(extra?: Environment): App;
  /** A digest of every fact row, to compare warehouses. */
  fingerprint(): Promise<Record<string, string | null>>;
  /** The environment of an `envdata` command on this fixture's database, queue and simulator. */
  cliEnv(extra?: Record<string, string>): Record<string, string>;
}

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
  const newApp = (extra?: Environment) => {
    const app = createApp(configEnv(extra));
    apps.push(app);
    return app;
  };
  beforeAll(async () => {
    simulator = await startSimulator({ now: '2024-06-30T12:00:00Z', ...simulatorOptions });
    const app = newApp();
    locations = [
      await insertLocation(app.db, {
        name: 'Berlin',
        lat: 52.52,
        lng: 13.405,
        countryCode: 'DE',
        registeredBy: 'coordinates',
      }),
      await insertLocation(app.db, {
        name: 'Brisbane',
        lat: -27.4698,
        lng: 153.0251,
        countryCode: 'AU',
        registeredBy: 'coordinates',
      }),
    ];
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
      return {
        DATABASE_URL: testEnv.databaseUrl,
        REDIS_URL: testEnv.redisUrl,
        ENVDATA_QUEUE_PREFIX: testEnv.queuePrefix,
        ENVDATA_QUEUE_BACKEND: testEnv.queueBackend,
        ENVDATA_BASE_URL: simulator!.url,
        ENVDATA_API_KEY: DEMO_API_KEY,
        ENVDATA_RATE_LIMIT: 'off',
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
        ...extra,
      };
    },
    async fingerprint() {
      const { rows } = await sql<Record<string, string | null>>`
        select
          (select md5(string_agg(t::text, '|' order by location_id, observed_at)) from envdata.weather_hourly t) as weather,
          (select md5(string_agg(t::text, '|' order by location_id, observed_at, pollen_type)) from envdata.pollen_hourly t) as pollen,
          (select md5(string_agg(t::text, '|' order by location_id, observed_at, species_id)) from envdata.pollen_species_hourly t) as species,
          (select count(*)::text from envdata.weather_hourly) as weather_rows,
          (select count(*)::text from envdata.pollen_species_hourly) as species_rows`.execute(
        apps[0]!.db,
      );
      return rows[0]!;
    },
  };
}
