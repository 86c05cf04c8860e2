import type { Uses } from '../runtime/app-resources.js';
import type { QueueBackend } from '../config/config.js';
import { isEnvdataError } from '../errors/envdata-error.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import type { ConnectedWorker } from '../queue/list-workers.js';
import { queuePauseMs } from '../admission/queue-pause.js';
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
    /**
     * When the pause of every worker in force ends (a 429 or 422, a spent call budget); `null`:
     * none. `envdata resume` ends it at once.
     */
    readonly pausedUntil?: Date | null;
  };
}

/**
 * Health of Postgres and Redis, pending migrations, queue depths, the workers connected and the
 * pause of every worker in force, if any (`envdata status`).
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
    let pausedUntil: Date | null = null;
    for (const name of Object.values(QUEUE_NAMES)) {
      const queue = app.queues.queue(name);
      queues[name] = await queue.getJobCounts(
        'waiting',
        'active',
        'delayed',
        'failed',
        'prioritized',
      );
      if (name === QUEUE_NAMES.ingest) {
        const pauseMs = await queuePauseMs(queue);
        if (pauseMs > 0) pausedUntil = new Date(Date.now() + pauseMs);
      }
    }
    const workers = await app.queues.listWorkers(QUEUE_NAMES.ingest);
    return { queues, workers, pausedUntil };
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
