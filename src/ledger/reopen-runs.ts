import type { Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/**
 * `envdata resume [RUN]`: stopped runs (a refused key, since fixed) and paused ones run again.
 * Returns the ids of the runs now running (all of them, or just `runId`).
 */
export async function reopenRuns(db: Kysely<Database>, runId?: number): Promise<number[]> {
  let query = db
    .updateTable('run')
    .set({ status: 'running', finished_at: null, error_code: null, error_message: null })
    .where('status', 'in', ['stopped', 'paused']);
  if (runId !== undefined) query = query.where('run_id', '=', runId);
  await query.execute();
  return runningRunIds(db, runId);
}

/** Ids of the running runs (or just `runId` when it is running). */
export async function runningRunIds(db: Kysely<Database>, runId?: number): Promise<number[]> {
  let running = db.selectFrom('run').select('run_id').where('status', '=', 'running');
  if (runId !== undefined) running = running.where('run_id', '=', runId);
  return (await running.orderBy('run_id').execute()).map((r) => r.run_id);
}

/**
 * `envdata retry RUN`: the failed chunks of the run wait again with fresh attempts and the run
 * runs again. Returns their ids (none: nothing changed).
 */
export async function requeueFailedChunks(db: Kysely<Database>, runId: number): Promise<number[]> {
  return db.transaction().execute(async (trx) => {
    const chunks = await trx
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
    if (chunks.length === 0) return [];
    await trx
      .updateTable('run')
      .set({
        status: 'running',
        finished_at: null,
        blocked_datasets: [],
        error_code: null,
        error_message: null,
      })
      .where('run_id', '=', runId)
      .execute();
    return chunks.map((c) => c.chunk_id);
  });
}

/** Whether the ledger has run `runId`. */
export async function runExists(db: Kysely<Database>, runId: number): Promise<boolean> {
  const row = await db
    .selectFrom('run')
    .select('run_id')
    .where('run_id', '=', runId)
    .executeTakeFirst();
  return row !== undefined;
}
