import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import type { NotificationEvent } from './record-notification.js';

/** A pending delivery claimed for posting, with the event of the outbox it delivers. */
export interface DueDelivery<Details> {
  readonly notificationId: string;
  readonly target: string;
  readonly event: NotificationEvent;
  readonly details: Details;
  readonly createdAt: Date;
  /** Attempts so far, this one included. */
  readonly attempts: number;
}

/** Which due deliveries a dispatcher claims, in what order, how many, for how long. */
export interface DeliveryClaim {
  /**
   * The deliveries it posts (their target, what they wait behind): a condition over `d`, the
   * delivery, and `n`, its event.
   */
  readonly where: RawBuilder<unknown>;
  /** The order they are claimed in. */
  readonly orderBy: RawBuilder<unknown>;
  readonly limit: number;
  readonly leaseMs: number;
}

/**
 * Claims up to `limit` pending deliveries that are due and meet `where`, skipping those another
 * dispatcher holds (`for update of d skip locked`: the delivery rows, never the events), and
 * leases them for `leaseMs`: their `next_attempt_at` moves past the post's timeout, so no other
 * dispatcher posts the same event to the same target meanwhile, and one that died mid-post is
 * taken over after the lease. Each claim counts as an attempt.
 */
export async function claimDueDeliveries<Details>(
  db: Kysely<Database>,
  claim: DeliveryClaim,
): Promise<DueDelivery<Details>[]> {
  const { rows } = await sql<{
    notification_id: string;
    target: string;
    event: NotificationEvent;
    details: Details;
    created_at: Date;
    attempts: number;
  }>`
    with due as (
      select d.notification_id, d.target from envdata.notification_delivery d
      join envdata.notification n using (notification_id)
      where d.status = 'pending' and d.next_attempt_at <= now() and (${claim.where})
      order by ${claim.orderBy}
      limit ${claim.limit}
      for update of d skip locked)
    update envdata.notification_delivery d set
      attempts = d.attempts + 1,
      next_attempt_at = now() + make_interval(secs => ${claim.leaseMs / 1000})
    from due, envdata.notification n
    where d.notification_id = due.notification_id and d.target = due.target
      and n.notification_id = d.notification_id
    returning d.notification_id::text, d.target, n.event, n.details, n.created_at, d.attempts`.execute(
    db,
  );
  return rows.map((r) => ({
    notificationId: r.notification_id,
    target: r.target,
    event: r.event,
    details: r.details,
    createdAt: r.created_at,
    attempts: r.attempts,
  }));
}
