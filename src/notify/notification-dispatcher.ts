import type { AppComponent } from '../runtime/app-component.js';
import type { Uses } from '../runtime/app-resources.js';
import type { NotifyTarget } from '../config/config.js';
import { coerceError } from '../errors/coerce-error.js';
import { backoffMs } from '../lifecycle/backoff.js';
import {
  addPendingDeliveries,
  claimDeliveries,
  dropExpiredDeliveries,
  markAttemptFailed,
  markDelivered,
  type ClaimedDelivery,
} from '../ledger/notification-deliveries.js';
import { checkAlerts } from './check-alerts.js';
import { checkBiRoles } from './check-bi-roles.js';
import { notificationBody } from './notification-document.js';
import { PollLoop } from './poll-loop.js';
import { postNotification, type PostAnswer } from './post-notification.js';

/** The dispatcher's timings; the defaults suit production, tests shorten them. */
export interface NotificationDispatcherOptions {
  /** How often the outbox is looked at for due events. Default 1 s. */
  readonly pollMs?: number;
  /** Longest a target may take to answer one POST. Default 10 s. */
  readonly timeoutMs?: number;
  /** First retry after a failed POST; doubles each attempt, with jitter. Default 5 s. */
  readonly retryBaseMs?: number;
  /** Longest wait between two attempts. Default 10 min. */
  readonly retryCapMs?: number;
  /** How often the periodic conditions are checked (`checkAlerts`); 0 never. Default 60 s. */
  readonly checkMs?: number;
}

/** Events claimed at once by one dispatcher. */
const CLAIM_LIMIT = 20;

/** What `app` lends the dispatcher. */
type DispatcherResources = Uses<'config' | 'db' | 'queues' | 'logger' | 'metrics' | 'outages'>;

/**
 * Delivers the outbox's events to ENVDATA_NOTIFY_URL, from inside every long-running process
 * (worker, scheduler, serve): it claims due deliveries with `for update skip locked` and a lease
 * (`claimDeliveries`), so any number of processes share the work and none posts an event to a
 * target another is posting it to; posts each with a timeout; on a 2xx marks it delivered, else
 * retries it with exponential backoff. Each target has its own delivery state: a dead one never
 * makes a live one receive an event twice. Events older than ENVDATA_NOTIFY_MAX_AGE are dropped
 * with a log line and `envdata_notifications_total{outcome="dropped"}`. It also checks the
 * periodic conditions (`checkAlerts`) every `checkMs`, whether or not a target is set, and puts
 * back the limits a BI role lifted for itself (`checkBiRoles`).
 */
export class NotificationDispatcher implements AppComponent {
  readonly name = 'notifier';
  private readonly log;
  private readonly targets: readonly NotifyTarget[];
  private readonly timeoutMs: number;
  private readonly retryBaseMs: number;
  private readonly retryCapMs: number;
  private readonly checkMs: number;
  private readonly startedAt = new Date();
  private readonly poll: PollLoop;
  private checkTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly app: DispatcherResources,
    options: NotificationDispatcherOptions = {},
  ) {
    this.log = app.logger.child({ component: 'notifier' });
    this.targets = app.config.notify.targets;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retryBaseMs = options.retryBaseMs ?? 5_000;
    this.retryCapMs = options.retryCapMs ?? 600_000;
    this.checkMs = options.checkMs ?? 60_000;
    this.poll = new PollLoop({
      round: () => this.deliverDue(),
      pollMs: options.pollMs ?? 1_000,
      app,
      log: this.log,
      failure: 'could not deliver alerts; trying again',
    });
  }

  start(): Promise<void> {
    if (this.targets.length > 0) {
      this.log.info(
        { targets: this.targets.map((t) => t.label), format: this.app.config.notify.format },
        'alerts are posted to ENVDATA_NOTIFY_URL',
      );
      this.poll.schedule(0);
    }
    if (this.checkMs > 0) this.scheduleCheck();
    return Promise.resolve();
  }

  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    clearTimeout(this.checkTimer);
    await this.poll.stop(timeoutMs);
  }

  /** Looks at the outbox now, not at the next poll. */
  wake(): void {
    if (this.targets.length > 0) this.poll.wake();
  }

  /**
   * Checks the periodic conditions now (`checkAlerts`), then again after about `checkMs`, or at
   * the next held quota's reset when that comes sooner: `quota-freed` is said as the reset
   * passes, not up to a period later. `biRoles: false` leaves the BI roles' settings unchecked
   * (`checkBiRoles`: roles are the whole server's, a test's own check must not touch them).
   */
  async check(options: { biRoles?: boolean } = {}): Promise<void> {
    clearTimeout(this.checkTimer);
    let nextReset: Date | undefined;
    try {
      nextReset = await checkAlerts(this.app, { watchingSince: this.startedAt });
      const told = options.biRoles === false ? [] : await checkBiRoles(this.app.db);
      for (const { role, lifted, resettable } of told) {
        this.log.warn(
          { role, lifted },
          resettable
            ? `BI role ${role} had lifted its own limits; put back`
            : `BI role ${role} lifted its own limits and this role may not put them back: run envdata bi-role as a superuser or a role with CREATEROLE`,
        );
      }
    } catch (error) {
      if (!this.app.outages.report(error)) {
        this.log.warn({ err: coerceError(error) }, 'could not check alert conditions');
      }
    }
    if (!this.stopped) this.scheduleCheck(nextReset);
  }

  private scheduleCheck(nextReset?: Date): void {
    // Jittered: processes started together do not all check in the same instant.
    const periodic = this.checkMs > 0 ? this.checkMs * (0.75 + Math.random() * 0.5) : Infinity;
    const atReset = nextReset === undefined ? Infinity : nextReset.getTime() - Date.now() + 10;
    clearTimeout(this.checkTimer);
    if (periodic === Infinity && atReset === Infinity) return;
    this.checkTimer = setTimeout(() => void this.check(), Math.max(0, Math.min(periodic, atReset)));
    this.checkTimer.unref();
  }

  /** One round: drop what is too old, claim what is due, post it. Returns whether it was full. */
  async deliverDue(): Promise<boolean> {
    const { db, config } = this.app;
    const ids = this.targets.map((t) => t.id);
    const { maxAgeMs } = config.notify;
    // First every target's row, then the drop: an event that aged past the limit before any
    // dispatcher saw it is dropped with a log line too, never skipped in silence.
    await addPendingDeliveries(db, ids, 2 * maxAgeMs, config.notify.events);
    for (const dropped of await dropExpiredDeliveries(db, ids, maxAgeMs)) {
      this.app.metrics.notification(dropped.event, 'dropped');
      this.log.warn(
        {
          event: dropped.event,
          notificationId: dropped.notificationId,
          target: this.labelOf(dropped.target),
          attempts: dropped.attempts,
        },
        'alert dropped undelivered: older than ENVDATA_NOTIFY_MAX_AGE',
      );
    }
    const claimed = await claimDeliveries(
      db,
      ids,
      CLAIM_LIMIT,
      // The lease outlasts the post's timeout.
      this.timeoutMs + 5_000,
    );
    await Promise.all(claimed.map((delivery) => this.deliver(delivery)));
    return claimed.length === CLAIM_LIMIT;
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const target = this.targets.find((t) => t.id === delivery.target)!;
    const body = notificationBody(
      {
        id: delivery.notificationId,
        event: delivery.event,
        at: delivery.createdAt,
        details: delivery.details,
      },
      this.app.config.notify.format,
    );
    const answer = await postNotification(target, body, this.timeoutMs);
    const fields = {
      event: delivery.event,
      notificationId: delivery.notificationId,
      target: target.label,
      attempts: delivery.attempts,
    };
    if (answer.ok) {
      await markDelivered(this.app.db, delivery);
      this.app.metrics.notification(delivery.event, 'delivered');
      this.log.info(fields, 'alert delivered');
      return;
    }
    const retryInMs = this.retryDelayMs(delivery.attempts);
    await markAttemptFailed(this.app.db, delivery, describeAnswer(answer), retryInMs);
    this.app.metrics.notification(delivery.event, 'failed');
    this.log.warn(
      { ...fields, answer: describeAnswer(answer), retryInMs },
      'alert not acknowledged: trying again later',
    );
  }

  private retryDelayMs(attempts: number): number {
    const { retryBaseMs: baseMs, retryCapMs: capMs } = this;
    return backoffMs(attempts - 1, { baseMs, capMs, maxDoublings: 20, jitter: 0.2 });
  }

  private labelOf(id: string): string {
    return this.targets.find((t) => t.id === id)?.label ?? 'a target';
  }
}

/** `HTTP 500`, or the reason there was no answer (`ECONNREFUSED`, `timeout`). */
export function describeAnswer(answer: PostAnswer): string {
  return 'status' in answer ? `HTTP ${answer.status}` : answer.error;
}
