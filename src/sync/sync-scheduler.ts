import { Worker } from 'bullmq';
import type { App } from '../app.js';
import { syncFiringOptions } from '../dispatch/job-options.js';
import type { OutageMonitor } from '../lifecycle/outage-monitor.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import { QUEUE_NAMES } from '../queue/queue-names.js';
import { startSync } from './start-sync.js';

export const NIGHTLY_SYNC_SCHEDULER_ID = 'nightly-sync';

/**
 * The nightly sync's schedule and the worker that plans each night's sync. The schedule is a
 * BullMQ job scheduler with a fixed id, so any number of scheduler processes starting at once,
 * or restarting in a loop, leave exactly one schedule; each firing is one job, so exactly one
 * sync per night whatever the number of schedulers.
 *
 * An outage of Postgres or Redis is ridden out: said once (`app.outages`); a sync that meets it
 * waits until both answer again, then goes back to the queue without using an attempt and is
 * planned again; the schedule is upserted again when the outage is over.
 */
export class SyncScheduler {
  /** Aborted by `close()`: a sync waiting out an outage gives up its wait at once. */
  private readonly stopping = new AbortController();
  private unsubscribe: () => void = () => undefined;
  /** The process's outage monitor, kept: it must be reachable after the app closed. */
  private readonly outages: OutageMonitor;

  private constructor(
    private readonly app: App,
    private worker: Worker | undefined,
  ) {
    this.outages = app.outages;
  }

  static async start(app: App): Promise<SyncScheduler> {
    const queue = app.queues.queue(QUEUE_NAMES.sync);
    const schedule = () =>
      queue.upsertJobScheduler(
        NIGHTLY_SYNC_SCHEDULER_ID,
        { pattern: app.config.sync.cron, tz: 'UTC' },
        {
          name: NIGHTLY_SYNC_SCHEDULER_ID,
          data: {},
          opts: syncFiringOptions(),
        },
      );
    await schedule();
    const scheduler = new SyncScheduler(app, undefined);
    // A Redis that comes back empty (no persistence, or a new one) has lost the schedule.
    scheduler.unsubscribe = app.outages.subscribe((state) => {
      if (state !== 'up') return;
      schedule().catch((error: unknown) => {
        if (!app.outages.report(error)) {
          app.logger.warn({ err: error }, 'could not schedule the nightly sync again');
        }
      });
    });
    const worker = app.queues.worker(QUEUE_NAMES.sync, () => scheduler.plan());
    worker.on('error', (error) => {
      if (!app.outages.report(error)) app.logger.warn({ err: error }, 'scheduler worker error');
    });
    scheduler.worker = worker;
    app.logger.info({ cron: app.config.sync.cron }, 'nightly sync scheduled (UTC)');
    return scheduler;
  }

  /** Plans one sync (the job of each firing); returns its run id. */
  private async plan(): Promise<number> {
    try {
      const start = await startSync(this.app, new Date());
      return start.runId;
    } catch (error) {
      if (!this.outages.report(error)) throw error;
      await this.outages.whenAvailable(this.stopping.signal);
      throw Worker.RateLimitError();
    }
  }

  /**
   * Stops taking firings; a sync being planned may finish for up to `timeoutMs`
   * (ENVDATA_SHUTDOWN_TIMEOUT_MS), after which it is left to run again elsewhere.
   */
  async close(timeoutMs = this.app.config.worker.shutdownTimeoutMs): Promise<void> {
    this.unsubscribe();
    this.stopping.abort();
    if (this.worker) await settlesWithin(this.worker.close(), timeoutMs);
  }
}
