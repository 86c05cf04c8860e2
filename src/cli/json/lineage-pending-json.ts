import { z } from 'zod';
import type { UndeliveredLineage } from '../../ledger/lineage-deliveries.js';
import { count, isoOrNull, isoTimestamp, jsonDocument } from './json-document.js';

/** `envdata lineage pending --json`: the OpenLineage events the receiver has not taken yet. */
export const lineagePendingJson = jsonDocument('lineage-pending', {
  receiverSet: z
    .boolean()
    .describe('whether ENVDATA_OPENLINEAGE_URL is set for this command (never the URL itself)'),
  total: count.describe('lineage events not delivered yet, in all'),
  events: z
    .array(
      z.object({
        id: z.string().describe('the event’s id in the outbox (`envdata.notification`)'),
        key: z
          .string()
          .describe(
            'one per transition: `lineage:run:RUN:ATTEMPT:start` or `lineage:run:RUN:ATTEMPT:end`; a rebuild’s: `lineage:rebuild:UUID:start` or `lineage:rebuild:UUID:end`',
          ),
        runId: count
          .nullable()
          .describe(
            'the envdata run it tells of (`envdata status RUN`); null for a rebuild, which writes no run',
          ),
        rebuildId: z
          .string()
          .nullable()
          .describe(
            'a rebuild’s (`envdata rebuild`): the UUID of its invocation, the event’s OpenLineage run id; null for a run',
          ),
        attempt: count.describe(
          'the run’s attempt: 1, then one more each time it runs again after it ended',
        ),
        kind: z.string().describe('`backfill`, `sync` or `rebuild`'),
        eventType: z.enum(['START', 'COMPLETE', 'FAIL', 'ABORT']).describe('the OpenLineage event'),
        eventTime: isoTimestamp.describe('the transition’s time, as the event says it'),
        recordedAt: isoTimestamp.describe('when the outbox row was written'),
        attempts: count.describe(
          'posts tried so far; 0: no process with ENVDATA_OPENLINEAGE_URL has tried it yet (or it waits behind an earlier event of its run)',
        ),
        lastError: z
          .string()
          .nullable()
          .describe(
            'why the last post failed (`HTTP 503`, `ECONNREFUSED`, `timeout`), never the URL',
          ),
        nextAttemptAt: isoTimestamp.nullable().describe('when it is tried again, if tried before'),
      }),
    )
    .describe('the oldest 100 first'),
});

export type LineagePendingJson = z.infer<typeof lineagePendingJson>;

/** The document of `undelivered`, made `now`. */
export function toLineagePendingJson(
  undelivered: { total: number; events: readonly UndeliveredLineage[] },
  receiverSet: boolean,
  now: Date,
): LineagePendingJson {
  return {
    kind: 'lineage-pending',
    version: 1,
    generatedAt: now.toISOString(),
    receiverSet,
    total: undelivered.total,
    events: undelivered.events.map((e) => ({
      id: e.notificationId,
      key: e.key,
      runId: e.snapshot.runId,
      rebuildId: e.snapshot.rebuildId ?? null,
      attempt: e.snapshot.attempt,
      kind: e.snapshot.kind,
      eventType: e.snapshot.eventType,
      eventTime: e.snapshot.eventTime,
      recordedAt: e.recordedAt.toISOString(),
      attempts: e.attempts,
      lastError: e.lastError,
      nextAttemptAt: isoOrNull(e.nextAttemptAt),
    })),
  };
}
