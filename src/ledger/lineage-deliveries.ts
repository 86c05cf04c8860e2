import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import { claimDueDeliveries } from './claim-due-deliveries.js';
import { LINEAGE_EVENT, LINEAGE_TARGET, type LineageSnapshot } from './record-lineage.js';

/**
 * Says that a process with ENVDATA_OPENLINEAGE_URL runs: from now on (for 7 days after the last
 * time it says so), runs record their lineage events (`recordLineage`).
 */
export async function announceLineageReceiver(db: Kysely<Database>): Promise<void> {
  await sql`
    insert into envdata.lineage_receiver (receiver, seen_at) values (${LINEAGE_TARGET}, now())
    on conflict (receiver) do update set seen_at = excluded.seen_at`.execute(db);
}

/**
 * Gives every lineage event without a delivery one, pending, to the lineage receiver (target
 * `openlineage`, whatever its URL): a lineage event never expires, it waits for the receiver.
 * `withinMs` looks only at events recorded that recently (index `notification_created_at`), so a
 * poll does not read every event ever sent; a look without it, now and then, finds any event a
 * long transaction committed later than that.
 */
export async function addLineageDeliveries(db: Kysely<Database>, withinMs?: number): Promise<void> {
  await sql`
    insert into envdata.notification_delivery (notification_id, target)
    select n.notification_id, ${LINEAGE_TARGET} from envdata.notification n
    where n.event = ${LINEAGE_EVENT}
      ${withinMs === undefined ? sql`` : sql`and n.created_at > now() - make_interval(secs => ${withinMs / 1000})`}
      and not exists (select 1 from envdata.notification_delivery d
        where d.notification_id = n.notification_id and d.target = ${LINEAGE_TARGET})
    on conflict do nothing`.execute(db);
}

/** A lineage event claimed for posting. */
export interface ClaimedLineage {
  readonly notificationId: string;
  readonly target: string;
  readonly snapshot: LineageSnapshot;
  /** Attempts so far, this one included. */
  readonly attempts: number;
}

/**
 * Claims up to `limit` due lineage deliveries, oldest first, skipping those another dispatcher
 * holds, and leases them for `leaseMs` (`claimDueDeliveries`, as for alerts). An event waits while an earlier event of the same run (or rebuild) is undelivered: a
 * receiver always hears a run's START before its end, whichever dispatcher posts them.
 */
export async function claimLineage(
  db: Kysely<Database>,
  limit: number,
  leaseMs: number,
): Promise<ClaimedLineage[]> {
  const claimed = await claimDueDeliveries<LineageSnapshot>(db, {
    where: sql`d.target = ${LINEAGE_TARGET}
      and not exists (
        select 1 from envdata.notification e
        join envdata.notification_delivery ed on ed.notification_id = e.notification_id
          and ed.target = ${LINEAGE_TARGET} and ed.status = 'pending'
        where e.event = ${LINEAGE_EVENT}
          and (e.details->>'runId')::int = (n.details->>'runId')::int
          and e.notification_id < n.notification_id)
      -- A rebuild's events (no run: \`runId\` null) wait behind those of their invocation.
      and not exists (
        select 1 from envdata.notification e
        join envdata.notification_delivery ed on ed.notification_id = e.notification_id
          and ed.target = ${LINEAGE_TARGET} and ed.status = 'pending'
        where n.details ? 'rebuildId' and e.event = ${LINEAGE_EVENT}
          and e.details->>'rebuildId' = n.details->>'rebuildId'
          and e.notification_id < n.notification_id)`,
    orderBy: sql`d.notification_id`,
    limit,
    leaseMs,
  });
  return claimed.map((c) => ({
    notificationId: c.notificationId,
    target: LINEAGE_TARGET,
    snapshot: c.details,
    attempts: c.attempts,
  }));
}

/** A lineage event the receiver has not taken yet. */
export interface UndeliveredLineage {
  readonly notificationId: string;
  readonly key: string;
  readonly snapshot: LineageSnapshot;
  readonly recordedAt: Date;
  /** Posts tried so far (0: no dispatcher with ENVDATA_OPENLINEAGE_URL has seen it). */
  readonly attempts: number;
  /** Why the last post failed (`HTTP 503`, `ECONNREFUSED`), never the URL. */
  readonly lastError: string | null;
  readonly nextAttemptAt: Date | null;
}

/** The lineage events not delivered yet, oldest first, at most `limit`; and how many in all. */
export async function undeliveredLineage(
  db: Kysely<Database>,
  limit: number,
): Promise<{ total: number; events: UndeliveredLineage[] }> {
  const { rows } = await sql<{
    notification_id: string;
    dedupe_key: string;
    details: LineageSnapshot;
    created_at: Date;
    attempts: number | null;
    last_error: string | null;
    next_attempt_at: Date | null;
    total: number;
  }>`
    select n.notification_id::text, n.dedupe_key, n.details, n.created_at, d.attempts,
      d.last_error, d.next_attempt_at, count(*) over ()::int as total
    from envdata.notification n
    left join envdata.notification_delivery d
      on d.notification_id = n.notification_id and d.target = ${LINEAGE_TARGET}
    where n.event = ${LINEAGE_EVENT} and (d.status is null or d.status = 'pending')
    order by n.notification_id
    limit ${limit}`.execute(db);
  return {
    total: rows[0]?.total ?? 0,
    events: rows.map((r) => ({
      notificationId: r.notification_id,
      key: r.dedupe_key,
      snapshot: r.details,
      recordedAt: r.created_at,
      attempts: r.attempts ?? 0,
      lastError: r.last_error,
      nextAttemptAt: r.next_attempt_at,
    })),
  };
}
