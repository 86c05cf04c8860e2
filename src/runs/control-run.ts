import type { Uses } from '../runtime/app-resources.js';
import { ingestJobId, type IngestJobData } from '../../jobs/ingest-chunk-job.js';
import { cancelRun, type CancelledRun } from '../ledger/cancel-run.js';
import { pauseRun } from '../ledger/pause-run.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';

/**
 * `envdata cancel RUN`: the run ends `cancelled`; its chunks not yet fetched are dropped from the
 * ledger and their jobs from the queue (a job a worker already holds finishes and lands). What
 * landed stays. `undefined`: the run had already finished.
 */
export async function cancelRunAndJobs(
  app: Uses<'db' | 'logger' | 'queues'>,
  runId: number,
): Promise<CancelledRun | undefined> {
  const cancelled = await cancelRun(app.db, runId);
  if (!cancelled) return undefined;
  const queue = app.queues.queue<IngestJobData>(QUEUE_NAMES.ingest);
  for (let i = 0; i < cancelled.dropped.length; i += 500) {
    // A job that is already gone, or held by a worker, is skipped by its claim: the chunk is gone.
    await Promise.all(
      cancelled.dropped
        .slice(i, i + 500)
        .map((id) => queue.remove(ingestJobId({ chunkId: id })).catch(() => 0)),
    );
  }
  app.logger.info({ runId, dropped: cancelled.dropped.length }, 'run cancelled');
  return cancelled;
}

/** `envdata pause RUN`: no worker starts another chunk of it until `envdata resume RUN`. */
export function pauseRunning(
  app: Uses<'db' | 'logger' | 'queues'>,
  runId: number,
): Promise<boolean> {
  return pauseRun(app.db, runId);
}
