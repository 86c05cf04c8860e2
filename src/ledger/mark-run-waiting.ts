import type { Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import { recordNotification } from './record-notification.js';

/**
 * Records why a run with work left does not move (`quota (day)`, `quota (month)`) and until
 * when: `status` shows it while `until` lies ahead, and forgets it after. Writes only when it
 * changes, so the chunks of a held run cost one update per reset, not one each. The first run
 * held by a reason until a reset records `quota-reached` in the same transaction (one event
 * per reason and reset, whatever the number of runs and workers); `quota-freed` follows once
 * the reset has passed (`checkAlerts`).
 */
export async function markRunWaiting(
  db: Kysely<Database>,
  runId: number,
  reason: string,
  until: Date,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const changed = await trx
      .updateTable('run')
      .set({ waiting_reason: reason, waiting_until: until })
      .where('run_id', '=', runId)
      .where((eb) =>
        eb.or([
          eb('waiting_until', 'is', null),
          eb('waiting_until', '<>', until),
          eb('waiting_reason', 'is', null),
          eb('waiting_reason', '<>', reason),
        ]),
      )
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) === 0) return;
    await recordNotification(trx, {
      key: quotaReachedKey(reason, until),
      event: 'quota-reached',
      details: {
        reason,
        until: until.toISOString(),
        action: 'nothing: work resumes by itself at the reset (raise ENVDATA_QUOTA to go faster)',
      },
    });
  });
}

/** The dedupe key of the event "`reason` holds the runs until `until`". */
export function quotaReachedKey(reason: string, until: Date): string {
  return `quota:${reason}:${until.toISOString()}:reached`;
}
