import type { Worker } from 'bullmq';
import type { App } from '../app.js';
import { QUEUE_NAMES } from '../queue/queue-names.js';
import { startSync } from './start-sync.js';

export const NIGHTLY_SYNC_SCHEDULER_ID = 'nightly-sync';

/**
 * The nightly sync's schedule and the worker that plans each night's sync. The schedule is a
 * BullMQ job scheduler with a fixed id, so any number of scheduler processes starting at once,
 * or restarting in a loop, leave exactly one schedule; each firing is one job, so exactly one
 * sync per night whatever the number of schedulers.
 */
export class SyncScheduler {
  private constructor(private readonly worker: Worker) {}

  static async start(app: App): Promise<SyncScheduler> {
    const queue = app.queues.queue(QUEUE_NAMES.sync);
    await queue.upsertJobScheduler(
      NIGHTLY_SYNC_SCHEDULER_ID,
      { pattern: app.config.sync.cron, tz: 'UTC' },
      {
        name: NIGHTLY_SYNC_SCHEDULER_ID,
        data: {},
        opts: { removeOnComplete: true, removeOnFail: 50 },
      },
    );
    const worker = app.queues.worker(QUEUE_NAMES.sync, async () => {
      const start = await startSync(app, new Date());
      return start.runId;
    });
    worker.on('error', (error) => app.logger.warn({ err: error }, 'scheduler worker error'));
    app.logger.info({ cron: app.config.sync.cron }, 'nightly sync scheduled (UTC)');
    return new SyncScheduler(worker);
  }

  async close(): Promise<void> {
    await this.worker.close();
  }
}
