import type { Uses } from '../runtime/app-resources.js';
import { createFeeder } from '../dispatch/create-feeder.js';
import { reopenRuns, requeueFailedChunks } from '../ledger/reopen-runs.js';
import { clearQueuePause } from '../admission/queue-pause.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';

/**
 * `envdata resume [RUN]`: stopped runs (a refused key, since fixed) and paused ones run again, and every
 * unfinished chunk of the running ones is dispatched again. Chunks already in Redis are not
 * queued twice. Without a run, the pause of every worker in force (a 429, a spent call budget)
 * ends too, for every worker on every host. Returns the runs resumed, the jobs dispatched and
 * the milliseconds the pause ended had left (0: none was in force, or a run was named).
 */
export async function resumeRuns(
  app: Uses<'config' | 'db' | 'logger' | 'queues'>,
  runId?: number,
): Promise<{ runs: number[]; dispatched: number; pauseEndedMs: number }> {
  const runs = await reopenRuns(app.db, runId);
  const feeder = createFeeder(app);
  const dispatched = (await feeder.redispatchAll()) + (await feeder.topUp());
  const pauseEndedMs =
    runId === undefined ? await clearQueuePause(app.queues.queue(QUEUE_NAMES.ingest)) : 0;
  if (pauseEndedMs > 0) {
    app.logger.info({ pauseEndedMs }, 'resume: the pause of every worker ended');
  }
  return { runs, dispatched, pauseEndedMs };
}

/** `envdata retry RUN`: only the failed chunks of the run go back on the queue. */
export async function retryFailedChunks(
  app: Uses<'config' | 'db' | 'logger' | 'queues'>,
  runId: number,
): Promise<number> {
  const chunks = await requeueFailedChunks(app.db, runId);
  if (chunks.length === 0) return 0;
  return createFeeder(app).add(chunks);
}
