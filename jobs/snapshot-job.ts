import { z } from 'zod';
import { DATASETS, SNAPSHOT_PRODUCT_NAMES } from '../src/types.js';
import { callJobOptions, type JobRetry, type JobSpec } from './job-options.js';

/** The name of the job of one snapshot of a sync, on the ingest queue. */
export const SNAPSHOT_JOB_NAME = 'snapshot';

/** A snapshot job: one latest reading or forecast of one location, for one sync. */
export const SNAPSHOT_JOB_PAYLOAD = z
  .object({
    runId: z.number().int().positive(),
    locationId: z.number().int().positive(),
    product: z.enum(SNAPSHOT_PRODUCT_NAMES),
    dataset: z.enum(DATASETS),
    /** The sync's instant (ISO): every snapshot of one sync shares it. */
    fetchedAt: z.iso.datetime(),
  })
  .readonly();

export type SnapshotJobData = z.infer<typeof SNAPSHOT_JOB_PAYLOAD>;

/**
 * One job id per snapshot of a sync (`snapshot-<run>-<location>-<dataset>-<product>`), so a sync
 * queues each product of a location once.
 */
export function snapshotJobId(data: SnapshotJobData): string {
  return `snapshot-${data.runId}-${data.locationId}-${data.dataset}-${data.product}`;
}

/** The job of one snapshot of a sync: retried like a chunk's, unprioritized. */
export function snapshotJob(data: SnapshotJobData, retry: JobRetry): JobSpec<SnapshotJobData> {
  return {
    name: SNAPSHOT_JOB_NAME,
    data,
    opts: { ...callJobOptions(retry), jobId: snapshotJobId(data) },
  };
}
