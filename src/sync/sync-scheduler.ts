import { ErrorCode, Worker } from 'bullmq';
import type { Uses } from '../runtime/app-resources.js';
import type { AppComponent } from '../runtime/app-component.js';
import {
  NIGHTLY_SYNC_JOB_PAYLOAD,
  NIGHTLY_SYNC_SCHEDULER_ID,
  nightlySyncJob,
} from '../../jobs/nightly-sync-job.js';
import type { OutageMonitor } from '../lifecycle/outage-monitor.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { assertJobPayload } from '../queue/assert-job-payload.js';
import { startSync } from './start-sync.js';
import { ExportSchedule } from './export-schedule.js';

/**
 * The nightly sync's schedule and the worker that plans each night's sync. The schedule is a
 * BullMQ job scheduler with a fixed id, so any number of scheduler processes starting at once,
 * or restarting in a loop, leave exactly one schedule; each firing is one job, so exactly one
 * sync per night whatever the number of schedulers.
 *
 * An outage of Postgres or Redis is ridden out: said once (`app.outages`); a sync that meets it
 * waits until both answer again, then goes back to the queue without using an attempt and is
 * planned again; the schedule is upserted again when the outage is over.
 *
 * A component of the app (`app.start({ scheduler: true })`), or started on its own.
 */
export class SyncScheduler implements AppComponent {
  readonly name = 'scheduler';
  /** Aborted by `close()`: a sync waiting out an outage gives up its wait at once. */
  private readonly stopping = new AbortController();
  private unsubscribe: () => void = () => undefined;
  /** The process's outage monitor, kept: it must be reachable after the app closed. */
  private readonly outages: OutageMonitor;
  private worker: Worker | undefined;
  /** ENVDATA_EXPORT_CRON's export, when set. */
  private exports: ExportSchedule | undefined;

  /** A scheduler that schedules nothing until `start()`. */
  constructor(private readonly app: Uses<'config' | 'db' | 'logger' | 'outages' | 'queues'>) {
    this.outages = app.outages;
  }

  /** A scheduler started at once; `close()` stops it. */
  static async start(
    app: Uses<'config' | 'db' | 'logger' | 'outages' | 'queues'>,
  ): Promise<SyncScheduler> {
    const scheduler = new SyncScheduler(app);
    await scheduler.start();
    return scheduler;
  }

  /** Upserts the schedule, then takes its firings. */
  async start(): Promise<void> {
    const { app } = this;
    const queue = app.queues.queue(QUEUE_NAMES.sync);
    const upsert = () =>
      queue.upsertJobScheduler(
        NIGHTLY_SYNC_SCHEDULER_ID,
        { pattern: app.config.sync.cron, tz: 'UTC' },
        nightlySyncJob(),
      );
    const schedule = () => upsertRacing(upsert);
    await schedule();
    // A Redis that comes back empty (no persistence, or a new one) has lost the schedule.
    this.unsubscribe = this.outages.subscribe((state) => {
      if (state !== 'up') return;
      schedule().catch((error: unknown) => {
        if (!this.outages.report(error)) {
          app.logger.warn({ err: error }, 'could not schedule the nightly sync again');
        }
      });
    });
    const worker = app.queues.worker(QUEUE_NAMES.sync, async (job) => {
      // A firing that is not one (added by hand, or by a release whose firings differ) fails
      // once, naming what is wrong with it, before anything plans.
      assertJobPayload(job, NIGHTLY_SYNC_JOB_PAYLOAD);
      return this.plan();
    });
    worker.on('error', (error) => {
      if (!this.outages.report(error)) app.logger.warn({ err: error }, 'scheduler worker error');
    });
    this.worker = worker;
    app.logger.info({ cron: app.config.sync.cron }, 'nightly sync scheduled (UTC)');
    const { exportCron, exportDir } = app.config.sync;
    if (exportCron && exportDir) {
      this.exports = new ExportSchedule({
        cron: exportCron,
        dir: exportDir,
        databaseUrl: app.config.databaseUrl,
        logger: app.logger,
      });
      this.exports.start();
    }
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
    if (this.exports) await settlesWithin(this.exports.close(), timeoutMs);
  }

  /** `close(timeoutMs)`: how the app stops it. */
  stop(timeoutMs: number): Promise<void> {
    return this.close(timeoutMs);
  }
}

/**
 * BullMQ's Postgres backend upserts a job scheduler in two steps that are not one atomic unit:
 * schedulers starting at the same moment can each find no schedule, and all but one then fail
 * to insert the same first firing (its id is the scheduler's id and time). The one that won has
 * left exactly the schedule and the firing asked for, so upserting again (now an update, which
 * is idempotent) settles it. Postgres may also abort one of them as a deadlock: tried again
 * too. Redis runs the upsert as one script and never gets here.
 */
export async function upsertRacing(upsert: () => Promise<unknown>, tries = 5): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await upsert();
      return;
    } catch (error) {
      if (attempt >= tries || !isSchedulerRace(error)) throw error;
    }
  }
}

function isSchedulerRace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === ErrorCode.SchedulerJobIdCollision ||
    code === ErrorCode.SchedulerJobSlotsBusy ||
    // Postgres aborts one of two such upserts that lock the same rows in opposite orders
    // (deadlock_detected), or one that cannot be serialized: nothing of it was written.
    code === '40P01' ||
    code === '40001'
  );
}
