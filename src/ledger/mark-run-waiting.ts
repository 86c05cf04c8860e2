import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/**
 * Records why a run with work left does not move (`quota (day)`, `quota (month)`,
 * `budget (month)`) and until
 * when: `status` shows it while `until` lies ahead, and forgets it after. Writes only when it
 * changes, so the chunks of a held run cost one update per reset, not one each. No event: a
 * hold resolves itself at the reset, so nobody is told twice a quota day; `checkAlerts` says
 * once per run that it is quota-bound, and when it should finish (`run-quota-bound`). One
 * statement, one round trip: it runs for every held job.
 */
export async function markRunWaiting(
  db: Kysely<Database>,
  runId: number,
  reason: string,
  until: Date,
): Promise<void> {
  await sql`
    update envdata.run set waiting_reason = ${reason}, waiting_until = ${until}
    where run_id = ${runId}
      and (waiting_until is null or waiting_until <> ${until}
        or waiting_reason is null or waiting_reason <> ${reason})`.execute(db);
}
