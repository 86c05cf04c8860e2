import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import { claimDueDeliveries, type DueDelivery } from './claim-due-deliveries.js';
import type { NotificationEvent } from './record-notification.js';

/** An event of the outbox, claimed for one target. */
export type ClaimedDelivery = DueDelivery<Record<string, unknown>>;

/**
 * Gives each target in `targets` (fingerprints) a pending delivery of every event of the last
 * `maxAgeMs` it has none of yet: a target added later gets the events still young enough (the
 * dispatcher looks twice as far back as ENVDATA_NOTIFY_MAX_AGE, so that an event no dispatcher saw
 * in time is dropped with a log line rather than skipped). Only `events` are given deliveries
 * (ENVDATA_NOTIFY_EVENTS): the others stay in the outbox, unposted.
 */
export async function addPendingDeliveries(
  db: Kysely<Database>,
  targets: readonly string[],
  maxAgeMs: number,
  events: readonly NotificationEvent[],
): Promise<void> {
  await sql`
    insert into envdata.notification_delivery (notification_id, target)
    select n.notification_id, t.target
    from envdata.notification n cross join unnest(${targets}::text[]) as t(target)
    where n.created_at > now() - make_interval(secs => ${maxAgeMs / 1000})
      and n.event <> 'test' and n.event = any(${events}::text[])
      and not exists (select 1 from envdata.notification_delivery d
        where d.notification_id = n.notification_id and d.target = t.target)
    on conflict do nothing`.execute(db);
}

/**
 * Claims up to `limit` pending deliveries to `targets` that are due, the longest due first, and
 * leases them for `leaseMs` (`claimDueDeliveries`): no other dispatcher posts the same event to
 * the same target meanwhile, and one that died mid-post is taken over after the lease.
 */
export function claimDeliveries(
  db: Kysely<Database>,
  targets: readonly string[],
  limit: number,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  return claimDueDeliveries(db, {
    where: sql`d.target = any(${targets}::text[])`,
    orderBy: sql`d.next_attempt_at`,
    limit,
    leaseMs,
  });
}

/** The receiver acknowledged: delivered, never posted again. */
export async function markDelivered(
  db: Kysely<Database>,
  delivery: Pick<ClaimedDelivery, 'notificationId' | 'target'>,
): Promise<void> {
  await db
    .updateTable('notification_delivery')
    .set({ status: 'delivered', delivered_at: new Date(), last_error: null })
    .where('notification_id', '=', Number(delivery.notificationId))
    .where('target', '=', delivery.target)
    .where('status', '=', 'pending')
    .execute();
}

/** The post failed (`error`, without the URL): tried again after `retryInMs`. */
export async function markAttemptFailed(
  db: Kysely<Database>,
  delivery: Pick<ClaimedDelivery, 'notificationId' | 'target'>,
  error: string,
  retryInMs: number,
): Promise<void> {
  await sql`
    update envdata.notification_delivery set
      last_error = ${error},
      next_attempt_at = now() + make_interval(secs => ${retryInMs / 1000})
    where notification_id = ${delivery.notificationId} and target = ${delivery.target}
      and status = 'pending'`.execute(db);
}

/**
 * Drops the pending deliveries to `targets` of events older than `maxAgeMs` and returns them:
 * an alert a day late helps no one, and retrying it forever would hide the fresh ones.
 */
export async function dropExpiredDeliveries(
  db: Kysely<Database>,
  targets: readonly string[],
  maxAgeMs: number,
): Promise<
  { notificationId: string; target: string; event: NotificationEvent; attempts: number }[]
> {
  const { rows } = await sql<{
    notification_id: string;
    target: string;
    event: NotificationEvent;
    attempts: number;
  }>`
    update envdata.notification_delivery d set status = 'dropped'
    from envdata.notification n
    where n.notification_id = d.notification_id and d.status = 'pending'
      and d.target = any(${targets}::text[])
      and n.created_at <= now() - make_interval(secs => ${maxAgeMs / 1000})
    returning d.notification_id::text, d.target, n.event, d.attempts`.execute(db);
  return rows.map((r) => ({
    notificationId: r.notification_id,
    target: r.target,
    event: r.event,
    attempts: r.attempts,
  }));
}

/**
 * Alerts of the last `maxAgeMs` not yet delivered to every target that has them: pending at
 * one target at least, or at none yet (no dispatcher with a target has run since). Lineage
 * events are not alerts: `undeliveredLineage` lists them.
 */
export async function countUndelivered(db: Kysely<Database>, maxAgeMs: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from envdata.notification n
    where n.created_at > now() - make_interval(secs => ${maxAgeMs / 1000})
      and n.event <> 'test' and n.event <> 'lineage'
      and (not exists (select 1 from envdata.notification_delivery d
             where d.notification_id = n.notification_id)
        or exists (select 1 from envdata.notification_delivery d
             where d.notification_id = n.notification_id and d.status = 'pending'))`.execute(db);
  return rows[0]?.n ?? 0;
}

/** An event of the outbox and how its deliveries stand. */
export interface RecentNotification {
  readonly notificationId: string;
  readonly event: NotificationEvent;
  readonly details: Record<string, unknown>;
  readonly createdAt: Date;
  readonly delivered: number;
  readonly pending: number;
  readonly dropped: number;
  /** The last error of a pending delivery, if any (never a URL). */
  readonly lastError: string | null;
}

/** The `limit` most recent alerts (lineage events aside), newest first, with their deliveries counted. */
export async function listRecentNotifications(
  db: Kysely<Database>,
  limit: number,
): Promise<RecentNotification[]> {
  const { rows } = await sql<{
    notification_id: string;
    event: NotificationEvent;
    details: Record<string, unknown>;
    created_at: Date;
    delivered: number;
    pending: number;
    dropped: number;
    last_error: string | null;
  }>`
    select n.notification_id::text, n.event, n.details, n.created_at,
      count(*) filter (where d.status = 'delivered')::int as delivered,
      count(*) filter (where d.status = 'pending')::int as pending,
      count(*) filter (where d.status = 'dropped')::int as dropped,
      max(d.last_error) filter (where d.status = 'pending') as last_error
    from envdata.notification n
    left join envdata.notification_delivery d using (notification_id)
    where n.event <> 'lineage'
    group by n.notification_id
    order by n.created_at desc, n.notification_id desc
    limit ${limit}`.execute(db);
  return rows.map((r) => ({
    notificationId: r.notification_id,
    event: r.event,
    details: r.details,
    createdAt: r.created_at,
    delivered: r.delivered,
    pending: r.pending,
    dropped: r.dropped,
    lastError: r.last_error,
  }));
}
