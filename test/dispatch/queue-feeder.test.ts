import { describe, expect, it } from 'vitest';
import { createFeeder } from '../../src/dispatch/create-feeder.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForRun } from '../harness/wait-for-run.js';

// A bounded feed: Postgres holds the plan, the queue (Redis or Postgres) only the next few jobs.
const fx = useBackfillFixture({}, { ENVDATA_MAX_QUEUED_JOBS: '5' });

describe('the queue feeder', () => {
  it('keeps at most ENVDATA_MAX_QUEUED_JOBS jobs waiting, however big the plan, and feeds all of it', async () => {
    const app = fx.app;
    // 2 locations × 2 datasets × 10 windows of 48 h: 40 chunks.
    const plan = await fx.planBackfill(backfillRange('2024-05-01', '2024-05-21'));
    const queue = app.queues.queue(QUEUE_NAMES.ingest);
    const feeder = createFeeder(app);

    expect(await feeder.topUp()).toBe(5);
    expect(await feeder.topUp()).toBe(0); // still full: nothing added
    // Backfill jobs wait with a priority (behind sync's): BullMQ counts them as prioritized.
    expect(await queue.getJobCounts('waiting', 'prioritized')).toEqual({
      waiting: 0,
      prioritized: 5,
    });

    // Workers top the queue up as they drain it: every chunk is fed, 5 at a time.
    const worker = IngestWorker.start(app, { concurrency: 2 });
    try {
      const progress = await waitForRun(app.db, plan.runId!);
      expect(progress).toMatchObject({ status: 'done', done: 40, failed: 0 });
    } finally {
      await worker.close();
    }
    expect(fx.simulator.stats().total).toBe(40);
  });
});
