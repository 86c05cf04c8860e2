import type { Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import type { OutageMonitor } from '../lifecycle/outage-monitor.js';
import type { Logger } from '../logging/create-logger.js';
import type { EnvdataMetrics } from '../metrics/envdata-metrics.js';
import type { MetricsObservers } from '../metrics/metrics-observers.js';
import type { QueueFactory } from '../queue/queue-factory.js';
import type { ServiceClient } from '../service/service-client.js';
import type { Database } from '../warehouse/schema.js';

/**
 * What the composition root (`App`, src/app.ts) lends to the parts it runs: use cases, the
 * worker, the scheduler. Each names the few it uses (`Uses<'db' | 'queues'>`), never the whole
 * `App`, so none depends on the root that builds it and each can be driven by a test with just
 * those.
 */
export interface AppResources {
  readonly config: Config;
  readonly logger: Logger;
  /** The warehouse (Kysely over the process's one pg pool). */
  readonly db: Kysely<Database>;
  /** BullMQ queues and workers with the configured prefix and connections. */
  readonly queues: QueueFactory;
  /** The process's one monitor of Postgres and Redis outages. */
  readonly outages: OutageMonitor;
  /** The process's one client of the service (needs ENVDATA_API_KEY). */
  readonly serviceClient: ServiceClient;
  /** The process's Prometheus registry and envdata's metrics in it (`GET /metrics`). */
  readonly metrics: EnvdataMetrics;
  /**
   * What the hot paths report to, once per call, batch or job: the metrics, and what a
   * component adds (`observers.add`).
   */
  readonly observers: MetricsObservers;
  /** Abandons every call to the service in flight (the shutdown deadline). */
  abortServiceCalls(): void;
  /** Cancels on the server every statement the pool is still running (the shutdown deadline). */
  cancelDatabaseStatements(): Promise<void>;
}

/** The resources a part of the app uses, by name. */
export type Uses<K extends keyof AppResources> = Pick<AppResources, K>;
