import { sql, type Kysely, type Transaction } from 'kysely';
import type { NotificationEvent } from '../config/notification-events.js';
import type { Database } from '../warehouse/schema.js';

export { NOTIFICATION_EVENTS, type NotificationEvent } from '../config/notification-events.js';

/** One event for the outbox. */
export interface NewNotification {
  /**
   * One per transition, whoever observes it: `run:12:ended`, `freshness:weather:breach:3`. A
   * second record with the same key is a no-op.
   */
  readonly key: string;
  readonly event: NotificationEvent;
  /** What the message says (counts, the run, the command to run); never a secret. */
  readonly details: Readonly<Record<string, unknown>>;
}

/**
 * Writes `notification` into the outbox, in the caller's transaction (`trx`): it exists if and
 * only if the transition it tells of commits. Returns whether it was new (`false`: another
 * process recorded the same transition first).
 */
export async function recordNotification(
  trx: Kysely<Database> | Transaction<Database>,
  notification: NewNotification,
): Promise<boolean> {
  const { rows } = await sql`
    insert into envdata.notification (dedupe_key, event, details)
    values (${notification.key}, ${notification.event}, ${JSON.stringify(notification.details)}::jsonb)
    on conflict (dedupe_key) do nothing
    returning notification_id`.execute(trx);
  return rows.length > 0;
}
