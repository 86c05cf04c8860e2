import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { INGEST_JOB_NAME } from '../../jobs/ingest-chunk-job.js';
import { NIGHTLY_SYNC_JOB_NAME } from '../../jobs/nightly-sync-job.js';
import { QUEUE_NAMES, type QueueName } from '../../jobs/queue-names.js';
import { SNAPSHOT_JOB_NAME } from '../../jobs/snapshot-job.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { SyncScheduler } from '../../src/sync/sync-scheduler.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { pollUntil } from '../harness/poll-until.js';
import { waitForRun } from '../harness/wait-for-run.js';

const fx = useBackfillFixture();

/** A job added by hand: retried up to 5 times and kept once failed, unless it fails for good. */
async function addByHand(queue: QueueName, name: string, data: unknown, jobId: string) {
  await fx.app.queues
    .queue(queue)
    .add(name, data, { jobId, attempts: 5, backoff: { type: 'fixed', delay: 10 } });
}

/** The job once it has failed, read after its failure (with its reason and attempts). */
function failedJob(queue: QueueName, jobId: string): Promise<Job> {
  return pollUntil<Job, unknown>(
    async () => {
      const jobs = fx.app.queues.queue(queue);
      // The state first: a job read before it failed and found failed after is a stale copy.
      const job =
        (await jobs.getJobState(jobId)) === 'failed' ? await jobs.getJob(jobId) : undefined;
      if (job) return { done: job };
      return { last: (await jobs.getJob(jobId))?.data };
    },
    {
      timeoutMs: 20_000,
      describe: (data) => `job ${jobId} never failed (${JSON.stringify(data)})`,
    },
  );
}

describe('a job whose payload does not hold', () => {
  it('fails once on the ingest queue, unrecoverably, naming the field; good jobs still run', async () => {
    await addByHand(QUEUE_NAMES.ingest, INGEST_JOB_NAME, { chunkId: '123' }, 'bad-chunk');
    await addByHand(
      QUEUE_NAMES.ingest,
      SNAPSHOT_JOB_NAME,
      { runId: 1, locationId: 2, product: 'latest', fetchedAt: 'yesterday' },
      'bad-snapshot',
    );
    await addByHand(QUEUE_NAMES.ingest, 'ingest', { chunkId: 1 }, 'bad-name');
    const worker = IngestWorker.start(fx.app, { concurrency: 2 });
    const failures: string[] = [];
    worker.worker.on('failed', (job) => failures.push(job?.id ?? '?'));
    try {
      const chunk = await failedJob(QUEUE_NAMES.ingest, 'bad-chunk');
      expect(chunk.failedReason).toBe(
        'job ingest-chunk bad-chunk: payload field "chunkId": expected number, received string',
      );
      expect(chunk.attemptsMade).toBe(1);
      expect((chunk.stacktrace ?? []).join('\n')).toMatch(/UnrecoverableError/);

      const snapshot = await failedJob(QUEUE_NAMES.ingest, 'bad-snapshot');
      expect(snapshot.failedReason).toMatch(
        /^job snapshot bad-snapshot: payload field "dataset": /,
      );
      expect(snapshot.failedReason).toMatch(
        /payload field "dataset": invalid option: expected one of "pollen"\|"weather"/,
      );
      expect(snapshot.failedReason).toMatch(/; payload field "fetchedAt": invalid ISO datetime/i);
      expect(snapshot.attemptsMade).toBe(1);

      const unnamed = await failedJob(QUEUE_NAMES.ingest, 'bad-name');
      expect(unnamed.failedReason).toBe(
        'job ingest bad-name: no job of that name runs on the ingest queue (ingest-chunk, snapshot)',
      );

      // The chunks of a backfill, queued as every release queues them, still land.
      const start = await startBackfill(fx.app, {
        ...backfillRange('2024-06-02', '2024-06-04', { datasets: ['weather'] }),
        locations: fx.locations.slice(0, 1),
      });
      const progress = await waitForRun(fx.app.db, start.runId!, { timeoutMs: 30_000 });
      expect(progress).toMatchObject({ status: 'done', failed: 0 });
      expect(progress.done).toBeGreaterThan(0);
    } finally {
      await worker.close();
    }
    // Each bad job failed once: none was retried.
    expect(failures.filter((id) => id.startsWith('bad-')).sort()).toEqual([
      'bad-chunk',
      'bad-name',
      'bad-snapshot',
    ]);
  }, 60_000);

  it('fails once on the sync queue before anything plans', async () => {
    const scheduler = await SyncScheduler.start(fx.app);
    try {
      await addByHand(QUEUE_NAMES.sync, NIGHTLY_SYNC_JOB_NAME, ['now'], 'bad-firing');
      const firing = await failedJob(QUEUE_NAMES.sync, 'bad-firing');
      expect(firing.failedReason).toBe(
        'job nightly-sync bad-firing: payload: expected object, received array',
      );
      expect(firing.attemptsMade).toBe(1);
    } finally {
      await scheduler.close();
    }
  }, 30_000);
});
