import { sql, type Kysely } from 'kysely';
import { refreshDailyRollups } from '../warehouse/refresh-daily-rollups.js';
import type { Database } from '../warehouse/schema.js';
import { recordLineage } from './record-lineage.js';

export interface CancelledRun {
  /** Chunks that had not been fetched: dropped from the ledger (and to be dropped from the queue). */
  readonly dropped: readonly number[];
  /** Chunks in flight: they finish and land; what lands stays. */
  readonly inFlight: number;
}

/**
 * Cancels a run that has not finished: it ends `cancelled`, the chunks it had not fetched are
 * dropped (their count kept in the run's `request` as `droppedChunks`), chunks in flight finish
 * and land, and every hour that landed stays (it is in the coverage). The rollups of what landed so far are refreshed in the same transaction. Returns
 * `undefined` when the run had already finished.
 */
export async function cancelRun(
  db: Kysely<Database>,
  runId: number,
): Promise<CancelledRun | undefined> {
  return db.transaction().execute(async (trx) => {
    const cancelled = await trx
      .updateTable('run')
      .set({
        status: 'cancelled',
        finished_at: new Date(),
        error_code: 'CANCELLED',
        error_message: 'cancelled by the operator (`envdata cancel`); what landed stays',
      })
      .where('run_id', '=', runId)
      .where('status', 'in', ['planning', 'running', 'paused', 'stopped'])
      .executeTakeFirst();
    if (Number(cancelled.numUpdatedRows) === 0) return undefined;
    const dropped = await trx
      .deleteFrom('chunk')
      .where('run_id', '=', runId)
      .where('status', 'in', ['pending', 'queued'])
      .returning('chunk_id')
      .execute();
    // The chunks dropped are deleted: their count is kept on the run, so the console can draw
    // them as dropped (with the windows of its plan never made chunks), not as "queued".
    await sql`
      update envdata.run
      set request = request || jsonb_build_object('droppedChunks', ${dropped.length}::int)
      where run_id = ${runId}`.execute(trx);
    const inFlight = await trx
      .selectFrom('chunk')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('run_id', '=', runId)
      .where('status', '=', 'running')
      .executeTakeFirstOrThrow();
    await refreshDailyRollups(trx);
    // ABORT, unless the attempt ended already (a stopped run said FAIL): one terminal event each.
    await recordLineage(trx, runId, 'ABORT');
    return { dropped: dropped.map((c) => c.chunk_id), inFlight: Number(inFlight.n) };
  });
}
