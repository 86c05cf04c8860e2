import { z } from 'zod';
import { callJobOptions, type JobRetry, type JobSpec } from './job-options.js';

/** The name of the job of one chunk, on the ingest queue. */
export const INGEST_JOB_NAME = 'ingest-chunk';

/** What an ingest job carries: only the chunk's id. Never a secret; the ledger has the rest. */
export const INGEST_JOB_PAYLOAD = z.object({ chunkId: z.number().int().positive() }).readonly();

export type IngestJobData = z.infer<typeof INGEST_JOB_PAYLOAD>;

/** BullMQ priority of backfill jobs: behind the sync's unprioritized ones. */
export const BACKFILL_JOB_PRIORITY = 100;

/** One job id per chunk (`chunk-<id>`), so dispatching a chunk twice is a no-op in BullMQ. */
export function ingestJobId(data: IngestJobData): string {
  return `chunk-${data.chunkId}`;
}

/**
 * The job of one chunk. Urgent chunks (a sync) get no priority, which BullMQ serves before every
 * prioritized (backfill) job.
 */
export function chunkJob(
  chunk: { readonly chunkId: number; readonly urgent: boolean },
  retry: JobRetry,
): JobSpec<IngestJobData> {
  const data: IngestJobData = { chunkId: chunk.chunkId };
  return {
    name: INGEST_JOB_NAME,
    data,
    opts: {
      ...callJobOptions(retry),
      jobId: ingestJobId(data),
      ...(chunk.urgent ? {} : { priority: BACKFILL_JOB_PRIORITY }),
    },
  };
}
