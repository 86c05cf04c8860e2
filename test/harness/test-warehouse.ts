import { afterAll, beforeAll } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { createRun } from '../../src/ledger/create-run.js';
import { insertChunks } from '../../src/ledger/insert-chunks.js';
import { insertLocation } from '../../src/locations/insert-location.js';
import type { Location, NewLocation } from '../../src/locations/location.js';
import { factsOfBody } from '../../src/datasets/facts-of-body.js';
import type { Dataset, Window } from '../../src/types.js';
import type { ChunkLanding } from '../../src/warehouse/fact-writer.js';
import { useTestEnvironment, type TestEnvironment } from './test-environment.js';

export interface TestWarehouse {
  readonly env: TestEnvironment;
  readonly app: App;
  addLocation(input: Omit<NewLocation, 'registeredBy'>): Promise<Location>;
  /** Plans one chunk in the ledger (a run of its own) and returns its id. */
  planChunk(dataset: Dataset, locationId: number, from: Date, to: Date): Promise<number>;
  /**
   * A complete 200 landing of `body` for a newly planned chunk over `[from, to)`: what the worker
   * would hand the `FactWriter` (no re-fetch allowed, hours expected unless `expected` says).
   */
  landingOf(
    dataset: Dataset,
    locationId: number,
    window: Window,
    body: string,
    extra?: Partial<Pick<ChunkLanding, 'expected' | 'refetchAllowed'>>,
  ): Promise<ChunkLanding>;
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
    async landingOf(dataset, locationId, window, body, extra = {}) {
      return {
        chunkId: await this.planChunk(dataset, locationId, window.from, window.to),
        dataset,
        runId: null,
        locationId,
        window,
        outcome: 'rows',
        complete: true,
        expected: undefined,
        refetchAllowed: false,
        calls: 1,
        attempts: 1,
        startedAt: new Date(),
        httpStatus: 200,
        facts: factsOfBody(dataset, body, window),
        rawBody: body,
        ...extra,
      };
    },
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
