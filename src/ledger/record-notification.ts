import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/**
 * The events envdata tells a person of (issue 24), one per state transition:
 * - `run-ended`: a run ended failed, or with quarantined hours, failed chunks or values set
 *   aside;
 * - `key-refused`: the service refused the key (401) and the run stopped;
 * - `product-refused`: the service refused a dataset to the key (403);
 * - `wrong-address`: a run stopped as `WRONG_ADDRESS`;
 * - `run-stopped`: a run stopped for another reason no retry fixes;
 * - `quota-reached` / `quota-freed`: a calendar quota held the runs, and its reset came;
 * - `freshness-breached` / `freshness-recovered`: locations of a dataset lag more than
 *   ENVDATA_FRESHNESS_MAX_LAG, and later none does;
 * - `no-worker`: runs wait and no worker has been connected for ENVDATA_NO_WORKER_ALERT;
 * - `sync-missed`: the nightly sync did not start within an hour of its schedule;
 * - `upstream-changed`: an answer of the service had a shape never seen before for its endpoint
 *   (`recordUpstreamShape`: one per shape, whatever the number of answers and workers);
 * - `bi-role-lifted`: a BI role lifted a timeout or its connection limit for itself (`ALTER ROLE
 *   … SET statement_timeout = 0`), put back by the periodic check (`checkBiRoles`) or, when this
 *   role may not, waiting for `envdata bi-role`; one per time it happened;
 * - `test`: `envdata notify test` (never in the outbox).
 */
export const NOTIFICATION_EVENTS = [
  'run-ended',
  'key-refused',
  'product-refused',
  'wrong-address',
  'run-stopped',
  'quota-reached',
  'quota-freed',
  'freshness-breached',
  'freshness-recovered',
  'no-worker',
  'sync-missed',
  'upstream-changed',
  'bi-role-lifted',
  'test',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

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
