import { z } from 'zod';
import { NOTIFICATION_EVENTS, type NotificationEvent } from './notification-events.js';

/**
 * ENVDATA_NOTIFY_EVENTS: the events posted to ENVDATA_NOTIFY_URL, a comma (or space) separated
 * list of event names, or `all` (the default). An unknown name is refused with the list of known
 * ones: a typo would otherwise silence an alert for good. The outbox keeps every event whatever
 * the filter (`envdata status`, the console list them); only the posting is filtered.
 */
export const notifyEventsSchema = z
  .string()
  .transform((value, ctx): readonly NotificationEvent[] => {
    const names = value.split(/[\s,]+/).filter((n) => n !== '');
    if (names.length === 1 && names[0] === 'all') return NOTIFICATION_EVENTS;
    const known = new Set<string>(NOTIFICATION_EVENTS);
    const unknown = names.filter((n) => !known.has(n));
    if (unknown.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown event(s) ${unknown.map((n) => `"${n}"`).join(', ')}: known events are all, ${NOTIFICATION_EVENTS.join(', ')}`,
      });
      return z.NEVER;
    }
    if (names.length === 0) {
      ctx.addIssue({ code: 'custom', message: 'must name at least one event, or all' });
      return z.NEVER;
    }
    return NOTIFICATION_EVENTS.filter((e) => names.includes(e));
  });
