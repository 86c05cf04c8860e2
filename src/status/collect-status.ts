import type { Uses } from '../app/app-resources.js';
import type { QueueBackend } from '../config/config.js';
import { isEnvdataError } from '../errors/envdata-error.js';
import { QUEUE_NAMES } from '../queue/queue-names.js';
import type { ConnectedWorker } from '../queue/list-workers.js';
import { redisAddressOf, redisTargetOf } from '../queue/redis-target.js';
import { maskUrl } from '../warehouse/database-url.js';
import { assertDatabaseAnswers } from '../warehouse/create-database.js';
import { pendingMigrations } from '../warehouse/migrate-to-latest.js';

export interface ServiceHealth {
  readonly url: string;
  readonly ok: boolean;
  readonly problem?: string;
}

export interface EnvdataStatus {
  readonly postgres: ServiceHealth & { readonly pendingMigrations?: readonly string[] };
  /** The queue's backend: Redis, or with ENVDATA_QUEUE_BACKEND=postgres the database again. */
  readonly redis: ServiceHealth & {
    readonly backend: QueueBackend;
    readonly queues?: Record<string, Record<string, number>>;
    readonly workers?: readonly ConnectedWorker[];
  };
}

/**
 * Health of Postgres and Redis, pending migrations, queue depths and the workers connected
 * (`envdata status`).
 */
export async function collectStatus(app: Uses<'config' | 'db' | 'queues'>): Promise<EnvdataStatus> {
  const { databaseUrl, queueBackend } = app.config;
  const postgres = await probe(maskUrl(databaseUrl), async () => {
    await assertDatabaseAnswers(databaseUrl);
    return { pendingMigrations: await pendingMigrations(app.db) };
  });
  const queueAddress =
    queueBackend === 'redis' ? redisAddressOf(redisTargetOf(app.config)) : maskUrl(databaseUrl);
  const queue = await probe(queueAddress, async () => {
    await app.queues.assertAnswers();
    const queues: Record<string, Record<string, number>> = {};
    for (const name of Object.values(QUEUE_NAMES)) {
      queues[name] = await app.queues
        .queue(name)
        .getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
    }
    const workers = await app.queues.listWorkers(QUEUE_NAMES.ingest);
    return { queues, workers };
  });
  return { postgres, redis: { ...queue, backend: queueBackend } };
}

/** `url`: where the service is, as shown (a masked URL, or a cluster's nodes). */
async function probe<T extends object>(
  url: string,
  check: () => Promise<T>,
): Promise<ServiceHealth & Partial<T>> {
  try {
    return { url, ok: true, ...(await check()) };
  } catch (error) {
    if (!isEnvdataError(error)) throw error;
    return { url, ok: false, problem: error.message } as ServiceHealth & Partial<T>;
  }
}
