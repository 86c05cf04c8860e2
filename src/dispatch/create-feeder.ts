import type { Uses } from '../runtime/app-resources.js';
import { historyWindowScope } from './history-window-scope.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import type { IngestJobData } from '../../jobs/ingest-chunk-job.js';
import { QueueFeeder } from './queue-feeder.js';

/** The app's feeder of the ingest queue, configured from its config. */
export function createFeeder(app: Uses<'config' | 'db' | 'logger' | 'queues'>): QueueFeeder {
  return new QueueFeeder(
    app.db,
    app.queues.queue<IngestJobData>(QUEUE_NAMES.ingest),
    {
      maxQueued: app.config.worker.maxQueuedJobs,
      retry: app.config.worker,
      recheckMs: app.config.ingest.recheckMs,
      noDataRecheckMs: app.config.ingest.noDataRecheckMs,
      windowScope: historyWindowScope(app.config),
    },
    app.logger.child({ component: 'feeder' }),
  );
}
