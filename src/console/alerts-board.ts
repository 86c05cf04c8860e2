import type { Kysely } from 'kysely';
import type { NotifyTarget } from '../config/config.js';
import { listRecentNotifications } from '../ledger/notification-deliveries.js';
import { notificationText } from '../notify/notification-text.js';
import type { Database } from '../warehouse/schema.js';

/** The console's Alerts page: the most recent events and how their deliveries stand. */
export interface AlertsBoard {
  /** Targets of ENVDATA_NOTIFY_URL, by host only (`target 1 (hooks.slack.com)`). */
  readonly targets: readonly string[];
  readonly events: readonly {
    readonly id: number;
    readonly event: string;
    readonly at: string;
    readonly text: string;
    readonly delivered: number;
    readonly pending: number;
    readonly dropped: number;
    readonly lastError: string | null;
    /** A `freshness-recovered`: the id and time of the breach it resolves, when listed too. */
    readonly resolves?: { readonly id: number; readonly at: string };
    /** A breach since recovered: the id and time of the event that resolved it. */
    readonly resolvedBy?: { readonly id: number; readonly at: string };
  }[];
}

/**
 * The `limit` most recent events of the outbox, newest first; a `freshness-recovered` is paired
 * with the `freshness-breached` of its dataset it resolves (the latest before it), so the page
 * shows the breach as resolved rather than as a second alarm.
 */
export async function alertsBoard(
  db: Kysely<Database>,
  targets: readonly NotifyTarget[],
  limit = 50,
): Promise<AlertsBoard> {
  const recent = await listRecentNotifications(db, limit);
  const pairs = breachesResolved(recent);
  return {
    targets: targets.map((t) => t.label),
    events: recent.map((n) => {
      const id = Number(n.notificationId);
      const resolvedBy = pairs.byBreach.get(id);
      const resolves = pairs.byRecovery.get(id);
      return {
        id,
        event: n.event,
        at: n.createdAt.toISOString(),
        text: notificationText(n.event, n.details),
        delivered: n.delivered,
        pending: n.pending,
        dropped: n.dropped,
        lastError: n.lastError,
        ...(resolves !== undefined && { resolves }),
        ...(resolvedBy !== undefined && { resolvedBy }),
      };
    }),
  };
}

/** Each recovery's breach (the latest of its dataset before it), both ways, among `recent`. */
function breachesResolved(recent: Awaited<ReturnType<typeof listRecentNotifications>>): {
  byBreach: Map<number, { id: number; at: string }>;
  byRecovery: Map<number, { id: number; at: string }>;
} {
  const byBreach = new Map<number, { id: number; at: string }>();
  const byRecovery = new Map<number, { id: number; at: string }>();
  // Oldest first: a recovery resolves the breach of its dataset still open.
  const open = new Map<unknown, { id: number; at: string }>();
  for (const n of [...recent].reverse()) {
    const event = { id: Number(n.notificationId), at: n.createdAt.toISOString() };
    if (n.event === 'freshness-breached') open.set(n.details.dataset, event);
    if (n.event !== 'freshness-recovered') continue;
    const breach = open.get(n.details.dataset);
    if (breach === undefined) continue;
    open.delete(n.details.dataset);
    byRecovery.set(event.id, breach);
    byBreach.set(breach.id, event);
  }
  return { byBreach, byRecovery };
}
