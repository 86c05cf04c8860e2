import type { Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/**
 * Records why a run with work left does not move (`quota (day)`, `quota (month)`,
 * `budget (month)`) and until
 * when: `status` shows it while `until` lies ahead, and forgets it after. Writes only when it
 * changes, so the chunks of a held run cost one update per reset, not one each.
 */
export async function markRunWaiting(
  db: Kysely<Database>,
  runId: number,
  reason: string,
  until: Date,
): Promise<void> {
  await db
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
    .execute();
}
