import { describe, expect, it } from 'vitest';
import type { IngestJobData } from '../../jobs/ingest-chunk-job.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { countRows } from '../harness/count-rows.js';
import { withoutRedis } from '../harness/test-environment.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { useCleanReference } from './clean-reference.js';
import { deleteQueueKeys, queueKeys } from './queue-keys.js';
import { runChunks } from './run-chunks.js';
import { factRows, warehouseDigest } from './warehouse-digest.js';

const fx = useBackfillFixture();
const reference = useCleanReference();
const CONCURRENCY = 2;
// 48-hour grid days: 2 datasets × 2 locations × 5 windows = 20 chunks each.
const first = backfillRange('2024-06-02', '2024-06-12');
const second = backfillRange(first.to, '2024-06-22');

/** A worker slow enough (10 calls/s) that a run is still going when Redis loses its keys. */
function slowWorker(): IngestWorker {
  return IngestWorker.start(fx.newApp({ ENVDATA_RATE_LIMIT: '10/s' }), {
    concurrency: CONCURRENCY,
  });
}

const runCount = () => countRows(fx.app.db, 'run');

// Redis only (the Postgres backend keeps its jobs in tables): project `core`, not both legs.
describe.skipIf(withoutRedis())('Redis loses the queue mid-run [redis]', () => {
  it('the same backfill resumes its run and dispatches exactly its unfinished chunks', async () => {
    const start = await startBackfill(fx.app, { ...first, locations: fx.locations });
    const runId = start.runId!;
    expect(start.estimate.chunks).toBe(20);

    const busy = slowWorker();
    try {
      await waitForRun(fx.app.db, runId, { until: (p) => p.done >= 4 });
    } finally {
      await busy.close();
    }
    expect(await deleteQueueKeys(fx.env.redisUrl, fx.env.queuePrefix)).toBeGreaterThan(0);
    expect(await queueKeys(fx.env.redisUrl, fx.env.queuePrefix)).toEqual([]);

    const again = await startBackfill(fx.app, { ...first, locations: fx.locations });
    expect(again).toMatchObject({ runId, resumed: true });
    expect(await runCount()).toBe(1);

    const queue = fx.app.queues.queue<IngestJobData>(QUEUE_NAMES.ingest);
    const jobs = await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active']);
    const ledger = await runChunks(fx.app.db, runId);
    const unfinished = ledger.filter((c) => c.status !== 'done').map((c) => c.chunk_id);
    expect(unfinished.length).toBeGreaterThan(0);
    expect(unfinished.length).toBeLessThanOrEqual(16);
    expect(jobs.map((j) => j.data.chunkId).sort((a, b) => a - b)).toEqual(unfinished);

    const worker = IngestWorker.start(fx.app, { concurrency: 4 });
    try {
      const progress = await waitForRun(fx.app.db, runId);
      expect(progress).toMatchObject({ status: 'done', done: 20, failed: 0 });
    } finally {
      await worker.close();
    }
    // The slow worker was closed gracefully: nothing was in flight, nothing is fetched twice.
    expect(fx.simulator.stats().total).toBe(20);
    expect(factRows(await warehouseDigest(fx.app.db))).toBe(start.estimate.expectedRows);
  });

  it('a flush under busy workers loses no chunk and re-fetches at most what was in flight', async () => {
    fx.simulator.resetStats();
    const start = await startBackfill(fx.app, { ...second, locations: fx.locations });
    const runId = start.runId!;
    expect(start.estimate.chunks).toBe(20);

    const worker = slowWorker();
    try {
      await waitForRun(fx.app.db, runId, { until: (p) => p.done >= 4 });
      await deleteQueueKeys(fx.env.redisUrl, fx.env.queuePrefix);
      const again = await startBackfill(fx.app, { ...second, locations: fx.locations });
      expect(again).toMatchObject({ runId, resumed: true });
      const progress = await waitForRun(fx.app.db, runId);
      expect(progress).toMatchObject({ status: 'done', done: 20, failed: 0 });
    } finally {
      await worker.close();
    }
    expect(await runCount()).toBe(2);
    const calls = fx.simulator.stats().total;
    expect(calls).toBeGreaterThanOrEqual(20);
    expect(calls).toBeLessThanOrEqual(20 + CONCURRENCY);

    await reference.digestAfter(first);
    expect(await warehouseDigest(fx.app.db)).toEqual(await reference.digestAfter(second));
  });
});
