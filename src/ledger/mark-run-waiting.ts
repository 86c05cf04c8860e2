import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/**
 * Records why a run with work left does not move (`quota (day)`, `quota (month)`,
 * `budget (month)`) and until
 * when: `status` shows it while `until` lies ahead, and forgets it after. Writes only when it
 * changes, so the chunks of a held run cost one update per reset, not one each. The first run
 * held by a reason until a reset records `quota-reached` in the same statement (one event per
 * reason and reset, whatever the number of runs and workers); `quota-freed` follows once the
 * reset has passed (`checkAlerts`). One statement, one round trip: it runs for every held job.
 *
 * `refusedByService`: the service itself refused the window below envdata's cap, with the calls
 * envdata had counted then and its cap: the event says so, and advises checking the plan with
 * the provider or who else uses the key, never raising ENVDATA_QUOTA.
 */
export async function markRunWaiting(
  db: Kysely<Database>,
  runId: number,
  reason: string,
  until: Date,
  refusedByService?: { readonly counted: number; readonly limit: number },
): Promise<void> {
  const details = refusedByService
    ? {
        reason,
        until: until.toISOString(),
        refusedByService: true,
        counted: refusedByService.counted,
        limit: refusedByService.limit,
        action:
          'check the plan of the API key with the provider, and whether someone else uses the same key ' +
          '(raising ENVDATA_QUOTA cannot help: the service refuses); work resumes by itself at the reset',
      }
    : {
        reason,
        until: until.toISOString(),
        action: `nothing: work resumes by itself at the reset (raise ${
          reason.startsWith('budget') ? 'ENVDATA_BUDGET' : 'ENVDATA_QUOTA'
        } to go faster)`,
      };
  await sql`
    with changed as (
      update envdata.run set waiting_reason = ${reason}, waiting_until = ${until}
      where run_id = ${runId}
        and (waiting_until is null or waiting_until <> ${until}
          or waiting_reason is null or waiting_reason <> ${reason})
      returning run_id)
    insert into envdata.notification (dedupe_key, event, details)
    select ${quotaReachedKey(reason, until)}, 'quota-reached', ${JSON.stringify(details)}::jsonb
    where exists (select 1 from changed)
    on conflict (dedupe_key) do nothing`.execute(db);
}

/** The dedupe key of the event "`reason` holds the runs until `until`". */
export function quotaReachedKey(reason: string, until: Date): string {
  return `quota:${reason}:${until.toISOString()}:reached`;
}
