import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/**
 * Records why a run with work left does not move (`quota (day)`, `quota (month)`,
 * `budget (month)`) and until
 * when: `status` shows it while `until` lies ahead, and forgets it after. Writes only when it
 * changes, so the chunks of a held run cost one update per reset, not one each. A hold by
 * envdata's own quota or budget records no event: it resolves itself at the reset, so nobody is
 * told twice a quota day; `checkAlerts` says once per run that it is quota-bound, and when it
 * should finish (`run-quota-bound`). One statement, one round trip: it runs for every held job.
 *
 * `refusedByService`: the service itself refused the window below envdata's cap, with the calls
 * envdata had counted then and its cap. That needs a person: the first run held so until a reset
 * records `quota-reached` in the same statement (one event per reset, whatever the number of
 * runs and workers), advising to check the plan with the provider or who else uses the key,
 * never to raise ENVDATA_QUOTA; `quota-freed` follows once the reset has passed (`checkAlerts`).
 */
export async function markRunWaiting(
  db: Kysely<Database>,
  runId: number,
  reason: string,
  until: Date,
  refusedByService?: { readonly counted: number; readonly limit: number },
): Promise<void> {
  if (refusedByService) {
    const details = {
      reason,
      until: until.toISOString(),
      refusedByService: true,
      counted: refusedByService.counted,
      limit: refusedByService.limit,
      action:
        'check the plan of the API key with the provider, and whether someone else uses the same key ' +
        '(raising ENVDATA_QUOTA cannot help: the service refuses); work resumes by itself at the reset',
    };
    await sql`
      with changed as (
        update envdata.run set waiting_reason = ${reason}, waiting_until = ${until}
        where run_id = ${runId}
          and (waiting_until is null or waiting_until <> ${until}
            or waiting_reason is null or waiting_reason <> ${reason})
        returning run_id)
      insert into envdata.notification (dedupe_key, event, details)
      select ${`quota:${reason}:${until.toISOString()}:reached`}, 'quota-reached',
        ${JSON.stringify(details)}::jsonb
      where exists (select 1 from changed)
      on conflict (dedupe_key) do nothing`.execute(db);
    return;
  }
  await sql`
    update envdata.run set waiting_reason = ${reason}, waiting_until = ${until}
    where run_id = ${runId}
      and (waiting_until is null or waiting_until <> ${until}
        or waiting_reason is null or waiting_reason <> ${reason})`.execute(db);
}
