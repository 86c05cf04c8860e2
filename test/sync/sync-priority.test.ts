import { describe, expect, it } from 'vitest';
import { createFeeder } from '../../src/dispatch/create-feeder.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { startSync } from '../../src/sync/start-sync.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForRun } from '../harness/wait-for-run.js';

const fx = useBackfillFixture({ now: '2024-06-30T12:00:00Z' });

describe('sync before backfill', () => {
  it('a backfill in progress does not delay the sync of recent data', async () => {
    const now = new Date('2024-06-30T12:00:00Z');
    const backfill = await fx.planBackfill({ ...backfillRange('2024-03-01', '2024-06-01'), now });
    await createFeeder(fx.app).topUp();
    const sync = await startSync(fx.app, now);
    const worker = IngestWorker.start(fx.app, { concurrency: 2 });
    try {
      const synced = await waitForRun(fx.app.db, sync.runId);
      expect(synced.status).toBe('done');
      const behind = await runProgress(fx.app.db, backfill.runId!);
      // The backfill had every one of its chunks queued first, and most are still waiting.
      expect(behind!.done).toBeLessThan(behind!.total / 2);
      await waitForRun(fx.app.db, backfill.runId!);
    } finally {
      await worker.close();
    }
  });
});
