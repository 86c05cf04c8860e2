import { UnrecoverableError, type Job } from 'bullmq';
import {
  INGEST_JOB_NAME,
  INGEST_JOB_PAYLOAD,
  type IngestJobData,
} from '../../jobs/ingest-chunk-job.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import {
  SNAPSHOT_JOB_NAME,
  SNAPSHOT_JOB_PAYLOAD,
  type SnapshotJobData,
} from '../../jobs/snapshot-job.js';
import { assertJobPayload } from '../queue/assert-job-payload.js';
import type { createFetchSnapshotProcessor } from '../ingest/fetch-snapshot-job.js';
import type { IngestOutcome } from '../ingest/ingest-chunk-deps.js';
import type { createIngestChunkProcessor } from '../ingest/ingest-chunk-job.js';

/** What the ingest queue carries, once checked (`assertJobPayload`). */
export type IngestQueueData = IngestJobData | SnapshotJobData;

/** What a job of the ingest queue returns: a chunk's outcome, or the rows a snapshot landed. */
export type IngestQueueResult = IngestOutcome | number;

/** The processor of each job kind the ingest queue carries. */
export interface JobProcessors {
  readonly chunks: ReturnType<typeof createIngestChunkProcessor>;
  readonly snapshots: ReturnType<typeof createFetchSnapshotProcessor>;
}

/**
 * Runs the processor of the job's kind once its payload holds: the edge, where a job of an
 * older release or one added by hand fails at once (`UnrecoverableError`, no retry), its message
 * naming the field; so does a job of a name no processor takes.
 */
export function routeJob(
  processors: JobProcessors,
  job: Job<unknown>,
  token?: string,
): Promise<IngestQueueResult> {
  if (job.name === SNAPSHOT_JOB_NAME) {
    assertJobPayload(job, SNAPSHOT_JOB_PAYLOAD);
    return processors.snapshots(job);
  }
  if (job.name === INGEST_JOB_NAME) {
    assertJobPayload(job, INGEST_JOB_PAYLOAD);
    return processors.chunks.process(job, token);
  }
  throw new UnrecoverableError(
    `job ${job.name} ${job.id ?? '(no id)'}: no job of that name runs on the ${QUEUE_NAMES.ingest} queue (${INGEST_JOB_NAME}, ${SNAPSHOT_JOB_NAME})`,
  );
}
