import { beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { blockDataset } from '../../src/ledger/block-dataset.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForRun } from '../harness/wait-for-run.js';

/** A key the simulator lets call pollen only: weather answers 403. */
const POLLEN_ONLY = 'pollen-only-key-7';

const fx = useBackfillFixture({
  keys: { [DEMO_API_KEY]: ['pollen', 'weather', 'geocode'], [POLLEN_ONLY]: ['pollen'] },
});
let app: App;

beforeAll(() => {
  app = fx.newApp({ ENVDATA_API_KEY: POLLEN_ONLY, ENVDATA_MAX_ATTEMPTS: '3' });
});

function runRow(runId: number) {
  return app.db
    .selectFrom('run')
    .select(['status', 'blocked_datasets', 'error_code', 'error_message', 'finished_at'])
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
}

function refusals(runId: number) {
  return app.db
    .selectFrom('notification')
    .select(['dedupe_key', 'event', 'details'])
    .where('event', '=', 'product-refused')
    .where('dedupe_key', 'like', `run:${runId}:%`)
    .execute();
}

describe('blockDataset: a 403 met by an ingest job', () => {
  it('blocks the dataset for the run, records product-refused once, and the rest of the run lands', async () => {
    const berlin = fx.locations.filter((l) => l.name === 'Berlin');
    const start = await startBackfill(app, {
      ...backfillRange('2024-06-02', '2024-06-04'),
      locations: berlin,
    });
    const runId = start.runId!;
    const worker = IngestWorker.start(app, { concurrency: 2 });
    try {
      expect((await waitForRun(app.db, runId)).status).toBe('failed');
    } finally {
      await worker.close();
    }

    const chunks = await app.db
      .selectFrom('chunk')
      .select(['dataset', 'status', 'outcome', 'attempts', 'calls', 'error_code', 'error_message'])
      .where('run_id', '=', runId)
      .orderBy('dataset')
      .execute();
    const message = chunks.find((c) => c.dataset === 'weather')?.error_message ?? '';
    expect(message).toMatch(/^the API key is not allowed to use .*weather.* \(403\)/);
    expect(chunks).toEqual([
      {
        dataset: 'pollen',
        status: 'done',
        outcome: 'rows',
        attempts: 1,
        calls: 1,
        error_code: null,
        error_message: null,
      },
      // One call: a 403 is not retried, whatever ENVDATA_MAX_ATTEMPTS allows.
      {
        dataset: 'weather',
        status: 'failed',
        outcome: null,
        attempts: 1,
        calls: 1,
        error_code: 'FORBIDDEN',
        error_message: message,
      },
    ]);
    expect(await runRow(runId)).toEqual({
      status: 'failed',
      blocked_datasets: ['weather'],
      error_code: 'FORBIDDEN',
      error_message: message,
      finished_at: expect.any(Date),
    });
    expect(await refusals(runId)).toEqual([
      {
        dedupe_key: `run:${runId}:forbidden:weather`,
        event: 'product-refused',
        details: {
          runId,
          dataset: 'weather',
          message,
          action: 'enable weather for the key with the provider, then run the backfill again',
        },
      },
    ]);

    // Another worker meets the same 403 later: the latest message, no second event, still one
    // blocked dataset.
    await blockDataset(app.db, runId, 'weather', 'HTTP 403 again');
    expect(await runRow(runId)).toEqual({
      status: 'failed',
      blocked_datasets: ['weather'],
      error_code: 'FORBIDDEN',
      error_message: 'HTTP 403 again',
      finished_at: expect.any(Date),
    });
    expect(await refusals(runId)).toHaveLength(1);
  });
});
