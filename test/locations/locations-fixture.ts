import type { Selectable } from 'kysely';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { createServiceClient, type ServiceClient } from '../../src/service/service-client.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/start-simulator.js';
import type { LocationTable } from '../../src/warehouse/schema.js';
import { rememberSimulatorShareUnits } from '../harness/remember-simulator-share-units.js';
import { useTestEnvironment, type TestEnvironment } from '../harness/test-environment.js';

export interface LocationsFixture {
  readonly env: TestEnvironment;
  readonly app: App;
  readonly simulator: RunningSimulator;
  /** A client of the simulator with the demo key. */
  readonly client: ServiceClient;
  /** Geocoding calls the simulator answered since the last test started. */
  geocodeCalls(): number;
  reverseGeocodeCalls(): number;
  /** Every row of the location table, in the order registered. */
  locationRows(): Promise<Selectable<LocationTable>[]>;
  /** The environment of an `envdata` command on this database and simulator, logs off. */
  cliEnv(extra?: Record<string, string>): Record<string, string>;
}

/**
 * This file's own database, a simulator and a client of it; every location is deleted and the
 * simulator's counters and faults reset before each test. All closed after the file. The ledger
 * knows the simulator's share units from the start (`rememberSimulatorShareUnits`), so an apply of
 * the last few days lands whatever the calendar's weather.
 */
export function useLocationsFixture(): LocationsFixture {
  const env = useTestEnvironment();
  let app: App | undefined;
  let simulator: RunningSimulator | undefined;
  let client: ServiceClient | undefined;
  beforeAll(async () => {
    simulator = await startSimulator();
    app = createApp(env.config({ ENVDATA_BASE_URL: simulator.url, ENVDATA_API_KEY: DEMO_API_KEY }));
    client = createServiceClient({ ...app.config.service, apiKey: DEMO_API_KEY });
    await rememberSimulatorShareUnits(app.db);
  });
  beforeEach(async () => {
    await app!.db.deleteFrom('location').execute();
    simulator!.resetStats();
    simulator!.clearFaults();
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
    await simulator?.close();
  });
  const calls = (id: string) => simulator!.stats().byEndpoint[id] ?? 0;
  return {
    env,
    get app() {
      return app!;
    },
    get simulator() {
      return simulator!;
    },
    get client() {
      return client!;
    },
    geocodeCalls: () => calls('geocode-by-place'),
    reverseGeocodeCalls: () => calls('geocode-reverse'),
    locationRows: () => app!.db.selectFrom('location').selectAll().orderBy('location_id').execute(),
    cliEnv: (extra = {}) =>
      env.cliEnv({
        ENVDATA_BASE_URL: simulator!.url,
        ENVDATA_API_KEY: DEMO_API_KEY,
        LOG_LEVEL: 'silent',
        ...extra,
      }),
  };
}
