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
  }[];
}

/** The `limit` most recent events of the outbox, newest first. */
export async function alertsBoard(
  db: Kysely<Database>,
  targets: readonly NotifyTarget[],
  limit = 50,
): Promise<AlertsBoard> {
  const recent = await listRecentNotifications(db, limit);
  return {
    targets: targets.map((t) => t.label),
    events: recent.map((n) => ({
      id: Number(n.notificationId),
      event: n.event,
      at: n.createdAt.toISOString(),
      text: notificationText(n.event, n.details),
      delivered: n.delivered,
      pending: n.pending,
      dropped: n.dropped,
      lastError: n.lastError,
    })),
  };
}
