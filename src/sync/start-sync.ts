import type { App } from '../app.js';
import { createFeeder } from '../dispatch/create-feeder.js';
import {
  SNAPSHOT_JOB_NAME,
  SNAPSHOT_PRODUCTS,
  snapshotJobId,
  type SnapshotJobData,
} from '../dispatch/snapshot-job.js';
import { finishRunIfDone } from '../ledger/chunk-transitions.js';
import { resolveLocations } from '../locations/resolve-locations.js';
import { QUEUE_NAMES } from '../queue/queue-names.js';
import { DATASETS } from '../types.js';
import { planSync } from './plan-sync.js';

export interface SyncStart {
  readonly runId: number;
  readonly locations: number;
  readonly gaps: number;
  readonly snapshots: number;
}

/**
 * One sync (`envdata sync --now`, or the scheduler's nightly job): plans the recent history of
 * every registered location (lookback included) as a high-priority run, and queues the latest
 * readings and the three forecasts of each location as snapshot jobs. The workers do the rest,
 * through the same ledger, queue and rate limit as backfills.
 */
export async function startSync(app: App, now: Date = new Date()): Promise<SyncStart> {
  const locations = await resolveLocations(app.db, []);
  const { runId, gaps } = await planSync(app.db, {
    locations,
    datasets: DATASETS,
    lookbackHours: app.config.sync.lookbackHours,
    windowHours: app.config.ingest.historyWindowHours,
    now,
  });
  const fetchedAt = now.toISOString();
  const jobs = locations.flatMap((l) =>
    SNAPSHOT_PRODUCTS.map(({ product, dataset }) => {
      const data: SnapshotJobData = {
        runId,
        locationId: l.locationId,
        product,
        dataset,
        fetchedAt,
      };
      return {
        name: SNAPSHOT_JOB_NAME,
        data,
        opts: {
          jobId: snapshotJobId(data),
          attempts: app.config.worker.maxAttempts,
          backoff: { type: 'exponential', delay: app.config.worker.retryBaseMs, jitter: 0.5 },
          removeOnComplete: true,
          removeOnFail: true,
        },
      };
    }),
  );
  const queue = app.queues.queue<SnapshotJobData>(QUEUE_NAMES.ingest);
  for (let i = 0; i < jobs.length; i += 500) await queue.addBulk(jobs.slice(i, i + 500));
  if (gaps.length === 0) await finishRunIfDone(app.db, runId);
  else await createFeeder(app).topUp();
  app.logger.info({ runId, locations: locations.length, gaps: gaps.length }, 'sync planned');
  return { runId, locations: locations.length, gaps: gaps.length, snapshots: jobs.length };
}
