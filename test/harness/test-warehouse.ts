import { afterAll, beforeAll } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { createRunWithGaps } from '../../src/ledger/create-run-with-gaps.js';
import { materializeChunks } from '../../src/ledger/materialize-chunks.js';
import type { Location, NewLocation } from '../../src/locations/location.js';
import type { Dataset, Window } from '../../src/types.js';
import type { ChunkLanding } from '../../src/ledger/landing-decision.js';
import { addPointLocation } from './add-point-location.js';
import { useTestEnvironment, type TestEnvironment } from './test-environment.js';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { NO_FACTS } from '../../src/warehouse/fact-table.js';
import { landingOfBody } from '../fixtures/landing-of-body.js';
import { hoursBetween, weatherHistoryBody } from '../fixtures/payload-bodies.js';

export interface TestWarehouse {
  readonly env: TestEnvironment;
  readonly app: App;
  addLocation(input: Omit<NewLocation, 'registeredBy'>): Promise<Location>;
  /**
   * Plans one chunk over `[from, to)` in the ledger as a backfill would, a run of its own with
   * one gap turned into one `queued` chunk by the feeder's `materializeChunks`, and returns its
   * id. The window may already be covered (a test landing it again): the gap re-reads.
   */
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
    extra?: Partial<Pick<ChunkLanding, 'expected' | 'retries'>>,
  ): Promise<ChunkLanding>;
  /**
   * Lands hourly weather over `window` at the location through the production write path (a
   * planned chunk, the `FactWriter`): every hour expected, sent up to `sentTo` (default the
   * window's end, so hours after it are missing upstream), or the service's "no data" answer.
   */
  landWeather(
    locationId: number,
    window: Window,
    options?: { sentTo?: Date; noData?: boolean },
  ): Promise<void>;
}

const HOUR_MS = 3_600_000;

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
  let planning: Promise<unknown> = Promise.resolve();
  const get = () => {
    if (!app) throw new Error('useTestWarehouse: app used before beforeAll');
    return app;
  };
  return {
    env,
    get app() {
      return get();
    },
    addLocation: (input) => addPointLocation(get().db, input),
    async landingOf(dataset, locationId, window, body, extra = {}) {
      const chunkId = await this.planChunk(dataset, locationId, window.from, window.to);
      return landingOfBody({ chunkId, runId: null, dataset, locationId, window }, body, extra);
    },
    async landWeather(locationId, window, options = {}) {
      const sent = hoursBetween(
        window.from.toISOString(),
        (options.sentTo ?? window.to).toISOString(),
      );
      const landing = await this.landingOf(
        'weather',
        locationId,
        window,
        weatherHistoryBody(sent),
        {
          expected: window,
        },
      );
      const answer: ChunkLanding = options.noData
        ? { ...landing, outcome: 'no_data', facts: NO_FACTS, rawBody: undefined }
        : landing;
      await new FactWriter(get().db, { archiveRaw: false }).land([answer]);
    },
    planChunk(dataset, locationId, from, to) {
      // One at a time: the feeder feeds whichever run is oldest (landings built in parallel
      // would take each other's chunks), and only one feeder works at once anyway.
      const planned = planning.then(() => planOneChunk(get(), dataset, locationId, from, to));
      planning = planned.catch(() => undefined);
      return planned;
    },
  };
}

/** `planChunk`: a run with one gap, turned into one chunk by the feeder. */
async function planOneChunk(
  app: App,
  dataset: Dataset,
  locationId: number,
  from: Date,
  to: Date,
): Promise<number> {
  const { db, config } = app;
  const runId = await createRunWithGaps(db, {
    kind: 'backfill',
    priority: 0,
    // Windows tile a fixed grid from the epoch: one this long holds [from, to) whole, so the
    // gap is one chunk whatever hours it starts and ends at.
    windowHours: Math.ceil(to.getTime() / HOUR_MS),
    gaps: [{ dataset, locationId, from, to }],
    request: { test: true },
    refetch: true,
  });
  const [chunk, ...more] = await materializeChunks(db, 2, {
    recheckMs: config.ingest.recheckMs,
  });
  const row = await db
    .selectFrom('chunk')
    .select(['chunk_id', 'window_from', 'window_to'])
    .where('chunk_id', '=', chunk?.chunkId ?? 0)
    .where('run_id', '=', runId)
    .executeTakeFirst();
  if (!row || more.length > 0 || +row.window_from !== +from || +row.window_to !== +to) {
    throw new Error(
      `planChunk: the feeder did not make one chunk [${from.toISOString()}, ${to.toISOString()}) of run ${runId} (another run open in this database?)`,
    );
  }
  return row.chunk_id;
}
