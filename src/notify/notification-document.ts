import { z } from 'zod';
import type { NotifyFormat } from '../config/config.js';
import { NOTIFICATION_EVENTS, type NotificationEvent } from '../ledger/record-notification.js';
import { notificationText } from './notification-text.js';
import { withEventTime } from './with-event-time.js';

/** The body of an alert posted with ENVDATA_NOTIFY_FORMAT=json. */
export const notificationJson = z
  .object({
    kind: z.literal('notification').describe('always `notification`'),
    version: z.literal(1).describe('the version of this document; grows only on breaking changes'),
    id: z
      .string()
      .describe(
        'the event’s id in the outbox (`envdata.notification`); a repeated delivery carries the same id, so a receiver can drop duplicates. `test` for `envdata notify test`',
      ),
    event: z
      .enum(NOTIFICATION_EVENTS)
      .describe(
        'what happened: `run-ended` (failed, or with quarantined hours, failed chunks or values set aside), `key-refused` (401), `product-refused` (403), `wrong-address`, `run-stopped`, `quota-reached`, `quota-freed`, `run-quota-bound` (a run waits for the quota, with the day it should finish), `freshness-breached`, `freshness-recovered`, `no-worker`, `sync-missed`, `upstream-changed` (an answer shape never seen before), `bi-role-lifted` (a BI role lifted its own timeouts), `test`',
      ),
    at: z.string().describe('when the transition was recorded, ISO 8601 UTC'),
    text: z
      .string()
      .describe(
        'the human line, as the `slack` format posts it: what happened, what to do, and when it happened (`(at 2026-11-28 14:03 UTC)`)',
      ),
    details: z
      .record(z.string(), z.unknown())
      .describe(
        'the event’s figures: `runId`, `kind`, `status`, `failedByCode`, `quarantinedHours`, `dataset`, `stale`, `action` (the command to run), …; never a secret',
      ),
  })
  .describe('an alert of envdata (POST body with ENVDATA_NOTIFY_FORMAT=json)');

export type NotificationJson = z.infer<typeof notificationJson>;

/** One event to post. */
export interface OutgoingNotification {
  readonly id: string;
  readonly event: NotificationEvent;
  readonly at: Date;
  readonly details: Readonly<Record<string, unknown>>;
}

/**
 * The POST body of `notification` in `format`: Slack's `{"text": …}` or the typed document; the
 * text ends with the event's own time (`withEventTime`).
 */
export function notificationBody(notification: OutgoingNotification, format: NotifyFormat): string {
  const text = withEventTime(
    notificationText(notification.event, notification.details),
    notification.at,
  );
  if (format === 'slack') return JSON.stringify({ text });
  const document: NotificationJson = {
    kind: 'notification',
    version: 1,
    id: notification.id,
    event: notification.event,
    at: notification.at.toISOString(),
    text,
    details: { ...notification.details },
  };
  return JSON.stringify(document);
}
