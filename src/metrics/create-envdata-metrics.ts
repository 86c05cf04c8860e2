import type { JobType, Queue } from 'bullmq';
import type { Kysely } from 'kysely';
import { admissionStores } from '../admission/admission-stores.js';
import type { Config } from '../config/config.js';
import { countOpenChunks } from '../ledger/count-open-chunks.js';
import { readExportStatus } from '../export/export-status.js';
import { readFreshness, type Freshness } from '../ledger/read-freshness.js';
import type { Logger } from '../logging/create-logger.js';
import type { QueueFactory } from '../queue/queue-factory.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { readQuotaUsage } from '../admission/quota-usage.js';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import {
  EnvdataMetrics,
  QUEUE_JOB_STATES,
  type DatasetFreshness,
  type EnvdataMetricsOptions,
} from './envdata-metrics.js';

/**
 * What the metrics read at scrape time: the app's resources of these names
 * (`Uses<'config' | 'db' | 'logger' | 'queues'>`), spelled out here because src/runtime/ sits in a
 * layer above src/metrics/ (`AppResources` lends the metrics; eslint.walls.js).
 */
export interface MetricsSources {
  readonly config: Config;
  readonly logger: Logger;
  readonly db: Kysely<Database>;
  readonly queues: QueueFactory;
}

/**
 * The metrics of an app, their scrape-time gauges reading its ledger (`db`) and its queue
 * (`queues`, either backend), each opened only when first scraped.
 */
export function createEnvdataMetrics(
  app: MetricsSources,
  options: Pick<EnvdataMetricsOptions, 'collectTtlMs' | 'collectTimeoutMs'> = {},
): EnvdataMetrics {
  let queue: Queue | undefined;
  return new EnvdataMetrics({
    ...options,
    logger: app.logger,
    sources: {
      chunks: () => countOpenChunks(app.db),
      queueJobs: () => {
        // One queue object for every scrape: the factory keeps (and closes) each it creates.
        queue ??= app.queues.queue(QUEUE_NAMES.ingest);
        // `paused` is counted by both backends (the Redis script and the Postgres query), though
        // BullMQ 6's `JobType` no longer names it.
        return queue.getJobCounts(...(QUEUE_JOB_STATES as readonly string[] as JobType[]));
      },
      freshness: async () =>
        freshnessByDataset(await readFreshness(app.db, app.config.sync.maxLagHours)),
      quota: () => readQuotaUsage(admissionStores(app.queues).quota, app.config.quota),
      workersAlive: async () =>
        (await app.queues.listWorkers(QUEUE_NAMES.ingest)).filter((w) => w.alive).length,
      exportLag: async () => {
        const status = await readExportStatus(app.db);
        if (!status) return undefined;
        return status.oldestChangeAt
          ? Math.max(0, (Date.now() - +status.oldestChangeAt) / 1000)
          : 0;
      },
    },
  });
}

/** `readFreshness`'s rows (one per location and dataset) folded into one line per dataset. */
export function freshnessByDataset(rows: readonly Freshness[]): DatasetFreshness[] {
  const byDataset = new Map<Dataset, { worstLagSeconds: number | null; stale: number }>();
  for (const r of rows) {
    let f = byDataset.get(r.dataset);
    if (!f) byDataset.set(r.dataset, (f = { worstLagSeconds: null, stale: 0 }));
    if (r.stale) f.stale += 1;
    if (r.lagHours !== null) {
      f.worstLagSeconds = Math.max(f.worstLagSeconds ?? 0, r.lagHours * 3_600);
    }
  }
  return [...byDataset].map(([dataset, f]) => ({ dataset, ...f }));
}
