import type { Uses } from '../app/app-resources.js';
import { createFeeder } from '../dispatch/create-feeder.js';
import { reopenRuns, requeueFailedChunks } from '../ledger/reopen-runs.js';

/**
 * `envdata resume [RUN]`: stopped runs (a refused key, since fixed) and paused ones run again, and every
 * unfinished chunk of the running ones is dispatched again. Chunks already in Redis are not
 * queued twice. Returns the runs resumed and the jobs dispatched.
 */
export async function resumeRuns(
  app: Uses<'config' | 'db' | 'logger' | 'queues'>,
  runId?: number,
): Promise<{ runs: number[]; dispatched: number }> {
  const runs = await reopenRuns(app.db, runId);
  const feeder = createFeeder(app);
  const dispatched = (await feeder.redispatchAll()) + (await feeder.topUp());
  return { runs, dispatched };
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
