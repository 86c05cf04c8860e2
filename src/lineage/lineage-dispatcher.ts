import { sql } from 'kysely';
import type { AppComponent } from '../runtime/app-component.js';
import type { Uses } from '../runtime/app-resources.js';
import { DATASET_DEFINITIONS } from '../datasets/registry.js';
import { coerceError } from '../errors/coerce-error.js';
import { backoffMs } from '../lifecycle/backoff.js';
import {
  addLineageDeliveries,
  announceLineageReceiver,
  claimLineage,
  type ClaimedLineage,
} from '../ledger/lineage-deliveries.js';
import { markAttemptFailed, markDelivered } from '../ledger/notification-deliveries.js';
import { describeAnswer } from '../notify/notification-dispatcher.js';
import { PollLoop } from '../notify/poll-loop.js';
import { postNotification } from '../notify/post-notification.js';
import { buildRunEvent, type LineageColumn, type LineageContext } from './lineage-event.js';

/** envdata's version, as `envdata --version` says: the events' `producer` names it. */
export const ENVDATA_VERSION = '0.1.0';

/** The lineage dispatcher's timings; the defaults suit production, tests shorten them. */
export interface LineageDispatcherOptions {
  /** How often the outbox is looked at for due events. Default 1 s. */
  readonly pollMs?: number;
  /** Longest the receiver may take to answer one POST. Default 10 s. */
  readonly timeoutMs?: number;
  /** First retry after a failed POST; doubles each attempt, with jitter. Default 5 s. */
  readonly retryBaseMs?: number;
  /** Longest wait between two attempts. Default 10 min. */
  readonly retryCapMs?: number;
}

/** Events claimed at once by one dispatcher. */
const CLAIM_LIMIT = 20;
/** How often a running dispatcher says again that a receiver is set (`lineage_receiver`). */
const ANNOUNCE_MS = 3_600_000;

type LineageResources = Uses<'config' | 'db' | 'logger' | 'outages'>;

/**
 * Delivers the outbox's lineage events (`recordLineage`) to ENVDATA_OPENLINEAGE_URL, from every
 * long-running process where it is set, with the alerts' mechanics: due deliveries claimed with
 * `for update skip locked` and a lease (`claimLineage`), a POST with a timeout, delivered on a
 * 2xx, else retried with exponential backoff, for ever (a lineage event never expires). A run's
 * events are posted in order. The event is built at delivery from the snapshot its row holds
 * (`buildRunEvent`); the API key goes in the `authorization` header only. Alerts are never
 * posted here, and lineage events never to ENVDATA_NOTIFY_URL.
 */
export class LineageDispatcher implements AppComponent {
  readonly name = 'lineage';
  private readonly log;
  private readonly timeoutMs: number;
  private readonly retryBaseMs: number;
  private readonly retryCapMs: number;
  private readonly poll: PollLoop;
  private announcedAt = 0;
  private fullLookDone = false;
  private columns: Promise<Record<string, LineageColumn[]>> | undefined;

  constructor(
    private readonly app: LineageResources,
    options: LineageDispatcherOptions = {},
  ) {
    this.log = app.logger.child({ component: 'lineage' });
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retryBaseMs = options.retryBaseMs ?? 5_000;
    this.retryCapMs = options.retryCapMs ?? 600_000;
    this.poll = new PollLoop({
      round: () => this.deliverDue(),
      pollMs: options.pollMs ?? 1_000,
      app,
      log: this.log,
      failure: 'could not deliver lineage events; trying again',
    });
  }

  async start(): Promise<void> {
    if (!this.app.config.lineage) return;
    // Before the first run of this process: its START is recorded.
    await announceLineageReceiver(this.app.db).catch((error: unknown) => {
      if (!this.app.outages.report(error)) {
        this.log.warn({ err: coerceError(error) }, 'could not record the lineage receiver');
      }
    });
    this.announcedAt = Date.now();
    this.log.info(
      { receiver: new URL(this.app.config.lineage.endpoint).host },
      'lineage events are posted to ENVDATA_OPENLINEAGE_URL',
    );
    this.poll.schedule(0);
  }

  stop(timeoutMs: number): Promise<void> {
    return this.poll.stop(timeoutMs);
  }

  /** One round: give new events a delivery, claim what is due, post it. Returns whether it was full. */
  async deliverDue(): Promise<boolean> {
    const { db } = this.app;
    // Every event at the first round and once an hour (with the announcement), else the last
    // hour's: a poll reads the few events of late, not all of them.
    const full = this.fullLookDone === false || Date.now() - this.announcedAt > ANNOUNCE_MS;
    if (Date.now() - this.announcedAt > ANNOUNCE_MS) {
      await announceLineageReceiver(db);
      this.announcedAt = Date.now();
    }
    await addLineageDeliveries(db, full ? undefined : ANNOUNCE_MS);
    this.fullLookDone = true;
    // The lease outlasts the post's timeout.
    const claimed = await claimLineage(db, CLAIM_LIMIT, this.timeoutMs + 5_000);
    if (claimed.length === 0) return false;
    const context = await this.context();
    // In order: a run's START is claimed alone before its end (`claimLineage`), and posting one
    // at a time keeps the receiver's view of a run in order too.
    for (const delivery of claimed) await this.deliver(delivery, context);
    return claimed.length === CLAIM_LIMIT;
  }

  private async deliver(delivery: ClaimedLineage, context: LineageContext): Promise<void> {
    const lineage = this.app.config.lineage!;
    const event = buildRunEvent(delivery.snapshot, context);
    const answer = await postNotification(
      { url: lineage.endpoint },
      JSON.stringify(event),
      this.timeoutMs,
      lineage.apiKey ? { authorization: `Bearer ${lineage.apiKey}` } : {},
    );
    const fields = {
      eventType: event.eventType,
      runId: delivery.snapshot.runId,
      ...(delivery.snapshot.rebuildId !== undefined && { rebuildId: delivery.snapshot.rebuildId }),
      attempt: delivery.snapshot.attempt,
      notificationId: delivery.notificationId,
      attempts: delivery.attempts,
    };
    if (answer.ok) {
      await markDelivered(this.app.db, delivery);
      this.log.info(fields, 'lineage event delivered');
      return;
    }
    const retryInMs = backoffMs(delivery.attempts - 1, {
      baseMs: this.retryBaseMs,
      capMs: this.retryCapMs,
      maxDoublings: 20,
      jitter: 0.2,
    });
    await markAttemptFailed(this.app.db, delivery, describeAnswer(answer), retryInMs);
    this.log.warn(
      { ...fields, answer: describeAnswer(answer), retryInMs },
      'lineage event not acknowledged: trying again later',
    );
  }

  /** Settings and the `analytics` views' columns (read from the catalog once per process). */
  private async context(): Promise<LineageContext> {
    const outputTables = Object.fromEntries(
      DATASET_DEFINITIONS.map((d) => [d.name, d.factTables.map((t) => t.name)]),
    );
    this.columns ??= readColumns(this.app, Object.values(outputTables).flat()).catch(
      (error: unknown) => {
        this.columns = undefined;
        throw error;
      },
    );
    const { config } = this.app;
    return {
      version: ENVDATA_VERSION,
      jobNamespace: config.lineage!.namespace,
      serviceUrl: config.service.baseUrl,
      databaseUrl: config.databaseUrl,
      outputTables,
      columns: await this.columns,
    };
  }
}

/** The columns of `tables` of schema `analytics`, with their comments, in order. */
async function readColumns(
  app: Uses<'db'>,
  tables: readonly string[],
): Promise<Record<string, LineageColumn[]>> {
  const { rows } = await sql<{
    table: string;
    name: string;
    type: string;
    description: string | null;
    position: number;
  }>`
    select c.table_name as table, c.column_name as name, c.data_type as type,
      col_description(format('analytics.%I', c.table_name)::regclass, c.ordinal_position)
        as description,
      c.ordinal_position::int as position
    from information_schema.columns c
    where c.table_schema = 'analytics' and c.table_name = any(${[...tables]}::text[])
    order by c.table_name, c.ordinal_position`.execute(app.db);
  const columns: Record<string, LineageColumn[]> = {};
  for (const r of rows) {
    (columns[r.table] ??= []).push({
      name: r.name,
      type: r.type,
      description: r.description ?? undefined,
      ordinalPosition: r.position,
    });
  }
  return columns;
}
