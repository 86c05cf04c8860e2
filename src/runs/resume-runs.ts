import type { App } from '../app.js';
import { createFeeder } from '../dispatch/create-feeder.js';

/**
 * `envdata resume [RUN]`: stopped runs (a refused key, since fixed) run again, and every
 * unfinished chunk of the running ones is dispatched again. Chunks already in Redis are not
 * queued twice. Returns the runs resumed and the jobs dispatched.
 */
export async function resumeRuns(
  app: App,
  runId?: number,
): Promise<{ runs: number[]; dispatched: number }> {
  let query = app.db
    .updateTable('run')
    .set({ status: 'running', finished_at: null, error_code: null, error_message: null })
    .where('status', '=', 'stopped');
  if (runId !== undefined) query = query.where('run_id', '=', runId);
  await query.execute();
  let running = app.db.selectFrom('run').select('run_id').where('status', '=', 'running');
  if (runId !== undefined) running = running.where('run_id', '=', runId);
  const runs = (await running.execute()).map((r) => r.run_id);
  const feeder = createFeeder(app);
  const dispatched = (await feeder.redispatchAll()) + (await feeder.topUp());
  return { runs, dispatched };
}

/** `envdata retry RUN`: only the failed chunks of the run go back on the queue. */
export async function retryFailedChunks(app: App, runId: number): Promise<number> {
  const chunks = await app.db
    .updateTable('chunk')
    .set({
      status: 'queued',
      attempts: 0,
      error_code: null,
      error_message: null,
      finished_at: null,
    })
    .where('run_id', '=', runId)
    .where('status', '=', 'failed')
    .returning('chunk_id')
    .execute();
  if (chunks.length === 0) return 0;
  await app.db
    .updateTable('run')
    .set({ status: 'running', finished_at: null, blocked_datasets: [] })
    .where('run_id', '=', runId)
    .execute();
  return createFeeder(app).add(chunks.map((c) => c.chunk_id));
}
