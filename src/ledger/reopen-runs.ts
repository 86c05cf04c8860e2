import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import { recordLineage } from './record-lineage.js';

/**
 * `envdata resume [RUN]`: stopped runs (a refused key, since fixed) and paused ones run again.
 * Returns the ids of the runs now running (all of them, or just `runId`).
 */
export async function reopenRuns(db: Kysely<Database>, runId?: number): Promise<number[]> {
  await db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ run_id: number; was: string }>`
      with old as (
        select run_id, status from envdata.run
        where status in ('stopped', 'paused')
          ${runId === undefined ? sql`` : sql`and run_id = ${runId}`}
        for update)
      update envdata.run r
      set status = 'running', finished_at = null, error_code = null, error_message = null
      from old where r.run_id = old.run_id
      returning r.run_id, old.status::text as was`.execute(trx);
    // A stopped run's attempt ended (FAIL): running again is a new attempt. A paused one's did not.
    for (const r of rows) if (r.was === 'stopped') await recordLineage(trx, r.run_id, 'START');
  });
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
    const before = await trx
      .selectFrom('run')
      .select('status')
      .where('run_id', '=', runId)
      .forUpdate()
      .executeTakeFirst();
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
    // A run that had ended runs again: a new lineage attempt.
    if (before && ['done', 'failed', 'stopped', 'cancelled'].includes(before.status)) {
      await recordLineage(trx, runId, 'START');
    }
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
