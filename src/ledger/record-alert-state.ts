import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import { recordNotification, type NewNotification } from './record-notification.js';

/**
 * Sets condition `alert` (`freshness:weather`) to `active` and, when that is a change, records
 * the event `notify(changes)` returns (`changes`: how many times it changed, this one included:
 * the dedupe key's number) in the same transaction. The state's row is locked meanwhile, so two
 * processes checking at once see one change between them; a check that finds the state as it
 * was records nothing. Returns whether it changed.
 */
export async function recordAlertState(
  db: Kysely<Database>,
  alert: string,
  active: boolean,
  notify: (changes: number) => NewNotification | undefined,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await sql`insert into envdata.alert_state (alert) values (${alert})
      on conflict do nothing`.execute(trx);
    const { rows } = await sql<{ active: boolean; changes: number }>`
      select active, changes from envdata.alert_state where alert = ${alert} for update`.execute(
      trx,
    );
    const state = rows[0]!;
    if (state.active === active) return false;
    const changes = state.changes + 1;
    await trx
      .updateTable('alert_state')
      .set({ active, changes, changed_at: new Date() })
      .where('alert', '=', alert)
      .execute();
    const notification = notify(changes);
    if (notification) await recordNotification(trx, notification);
    return true;
  });
}

/**
 * Since when condition `alert` has been observed (its first observation, kept until
 * `forgetObservation`): how long no worker has been connected, say.
 */
export async function observedSince(db: Kysely<Database>, alert: string): Promise<Date> {
  const { rows } = await sql<{ changed_at: Date }>`
    insert into envdata.alert_state (alert, active) values (${alert}, true)
    on conflict (alert) do update set alert = excluded.alert
    returning changed_at`.execute(db);
  return rows[0]!.changed_at;
}

/** Forgets the observation of `alert` (`observedSince` starts again). */
export async function forgetObservation(db: Kysely<Database>, alert: string): Promise<void> {
  await db.deleteFrom('alert_state').where('alert', '=', alert).execute();
}
