import { afterAll, beforeAll } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { createRun } from '../../src/ledger/create-run.js';
import { insertChunks } from '../../src/ledger/insert-chunks.js';
import { insertLocation } from '../../src/locations/insert-location.js';
import type { Location, NewLocation } from '../../src/locations/location.js';
import type { Dataset } from '../../src/types.js';
import { useTestEnvironment, type TestEnvironment } from './test-environment.js';

export interface TestWarehouse {
  readonly env: TestEnvironment;
  readonly app: App;
  addLocation(input: Omit<NewLocation, 'registeredBy'>): Promise<Location>;
  /** Plans one chunk in the ledger (a run of its own) and returns its id. */
  planChunk(dataset: Dataset, locationId: number, from: Date, to: Date): Promise<number>;
}

/** A test file's own migrated database with an app on it, closed after the file. */
export function useTestWarehouse(): TestWarehouse {
  const env = useTestEnvironment();
  let app: App | undefined;
  beforeAll(() => {
    app = createApp(env.config());
  });
  afterAll(async () => {
    await app?.close();
  });
  const get = () => {
    if (!app) throw new Error('useTestWarehouse: app used before beforeAll');
    return app;
  };
  return {
    env,
    get app() {
      return get();
    },
    addLocation: (input) => insertLocation(get().db, { ...input, registeredBy: 'coordinates' }),
    async planChunk(dataset, locationId, from, to) {
      const db = get().db;
      const runId = await createRun(db, 'backfill', { test: true });
      await insertChunks(db, runId, [{ dataset, locationId, from, to }]);
      const row = await db
        .selectFrom('chunk')
        .select('chunk_id')
        .where('run_id', '=', runId)
        .where('dataset', '=', dataset)
        .where('location_id', '=', locationId)
        .where('window_from', '=', from)
        .where('window_to', '=', to)
        .executeTakeFirstOrThrow();
      return row.chunk_id;
    },
  };
}
