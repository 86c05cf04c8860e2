import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import { recordLineage } from './record-lineage.js';
import { recordNotification, type NotificationEvent } from './record-notification.js';

/** The event a run stopped with `code` tells of. */
function eventOfStop(code: string): NotificationEvent {
  if (code === 'UNAUTHORIZED') return 'key-refused';
  if (code === 'WRONG_ADDRESS') return 'wrong-address';
  return 'run-stopped';
}

/**
 * Stops a run at once (the key was refused, the base URL looks wrong): no worker calls the
 * service for it any more; `envdata resume RUN` runs it again. With `forgetNotCovered`, the
 * "not covered" (404) hours the run recorded are forgotten: answers from a wrong address say
 * nothing about the service's coverage. The one caller that stopped it records the event
 * (`key-refused`, `wrong-address`, `run-stopped`) and the lineage FAIL in the same transaction: `db`'s when it is
 * one, else one of its own.
 */
export async function stopRun(
  db: Kysely<Database>,
  runId: number,
  code: string,
  message: string,
  options: { readonly forgetNotCovered?: boolean } = {},
): Promise<boolean> {
  const write = async (trx: Transaction<Database>): Promise<boolean> => {
    const stopped = await trx
      .updateTable('run')
      .set({ status: 'stopped', error_code: code, error_message: message, finished_at: new Date() })
      .where('run_id', '=', runId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (options.forgetNotCovered) {
      await trx
        .deleteFrom('coverage_hole')
        .where('run_id', '=', runId)
        .where('cause', '=', 'not_covered')
        .execute();
      // Their chunks are not done either: a resumed run asks again.
      await trx
        .updateTable('chunk')
        .set({ status: 'queued', outcome: null, not_covered_hours: 0, finished_at: null })
        .where('run_id', '=', runId)
        .where('outcome', '=', 'not_covered')
        .execute();
    }
    if (Number(stopped.numUpdatedRows) === 0) return false;
    await recordNotification(trx, {
      key: `run:${runId}:stopped`,
      event: eventOfStop(code),
      details: { runId, code, message, action: `fix the cause, then envdata resume ${runId}` },
    });
    // The attempt ends here: `resume` starts another (`reopenRuns`).
    await recordLineage(trx, runId, 'FAIL');
    return true;
  };
  return db.isTransaction ? write(db as Transaction<Database>) : db.transaction().execute(write);
}
