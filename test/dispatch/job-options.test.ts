import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { chunkJob, ingestJobId } from '../../jobs/ingest-chunk-job.js';
import { snapshotJob, type SnapshotJobData } from '../../jobs/snapshot-job.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { useTestEnvironment } from '../harness/test-environment.js';

// The queue of the file's backend (project `redis` or `postgres`): the postgres leg needs no Redis.
const env = useTestEnvironment();
const app = createApp(env.config());
const factory = app.queues;
afterAll(() => app.close());

const RETRY = { maxAttempts: 4, retryBaseMs: 250 };

describe('job options', () => {
  it('queue a chunk once however often it is dispatched, backfills behind syncs', async () => {
    const queue = factory.queue(QUEUE_NAMES.ingest);
    const backfill = chunkJob({ chunkId: 41, urgent: false }, RETRY);
    const sync = chunkJob({ chunkId: 42, urgent: true }, RETRY);
    await queue.addBulk([backfill, sync]);
    await queue.addBulk([backfill, sync, chunkJob({ chunkId: 41, urgent: true }, RETRY)]);
    expect(await queue.getJobCounts('prioritized', 'waiting')).toEqual({
      prioritized: 1,
      waiting: 1,
    });
    const stored = await queue.getJob(ingestJobId({ chunkId: 41 }));
    expect(stored?.data).toEqual({ chunkId: 41 });
    expect(stored?.opts).toMatchObject({
      attempts: 4,
      backoff: { type: 'envdata-retry', delay: 250 },
      priority: 100,
    });
    expect((await queue.getJob('chunk-42'))?.opts.priority ?? 0).toBe(0);
  });

  it('queue each snapshot of a sync once, retried like chunks, gone from the queue once finished', async () => {
    const queue = factory.queue<SnapshotJobData>(QUEUE_NAMES.ingest);
    const data: SnapshotJobData = {
      runId: 7,
      locationId: 3,
      product: 'forecast_72h',
      dataset: 'weather',
      fetchedAt: '2024-06-30T12:00:00.000Z',
    };
    const job = snapshotJob(data, RETRY);
    expect(job.opts).toEqual({
      ...chunkJob({ chunkId: 1, urgent: true }, RETRY).opts,
      jobId: 'snapshot-7-3-weather-forecast_72h',
    });
    expect(job.opts).toMatchObject({ removeOnComplete: true, removeOnFail: true });
    await queue.addBulk([job, job, snapshotJob({ ...data, runId: 8 }, RETRY)]);
    const waiting = await queue.getJobs(['waiting']);
    expect(waiting.map((j) => j.id).filter((id) => id?.startsWith('snapshot-'))).toEqual(
      expect.arrayContaining([
        'snapshot-7-3-weather-forecast_72h',
        'snapshot-8-3-weather-forecast_72h',
      ]),
    );
    expect(waiting.filter((j) => j.id?.startsWith('snapshot-'))).toHaveLength(2);
  });
});
