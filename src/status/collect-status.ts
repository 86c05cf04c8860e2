import type { App } from '../app.js';
import { isEnvdataError } from '../errors/envdata-error.js';
import { QUEUE_NAMES } from '../queue/queue-names.js';
import { parseWorkerName, type WorkerIdentity } from '../queue/worker-identity.js';
import { assertRedisAnswers } from '../queue/create-redis.js';
import { maskUrl } from '../warehouse/database-url.js';
import { assertDatabaseAnswers } from '../warehouse/create-database.js';
import { pendingMigrations } from '../warehouse/migrate-to-latest.js';

export interface ServiceHealth {
  readonly url: string;
  readonly ok: boolean;
  readonly problem?: string;
}

/** A worker connected to the queue, as Redis sees its connection. */
export interface ConnectedWorker extends WorkerIdentity {
  /** Seconds since the connection's last command (a worker waiting for jobs stays near 0). */
  readonly idleSeconds: number;
  /** Seconds since the worker connected. */
  readonly ageSeconds: number;
}

export interface EnvdataStatus {
  readonly postgres: ServiceHealth & { readonly pendingMigrations?: readonly string[] };
  readonly redis: ServiceHealth & {
    readonly queues?: Record<string, Record<string, number>>;
    readonly workers?: readonly ConnectedWorker[];
  };
}

/**
 * Health of Postgres and Redis, pending migrations, queue depths and the workers connected
 * (`envdata status`).
 */
export async function collectStatus(app: App): Promise<EnvdataStatus> {
  const { databaseUrl, redisUrl } = app.config;
  const postgres = await probe(databaseUrl, async () => {
    await assertDatabaseAnswers(databaseUrl);
    return { pendingMigrations: await pendingMigrations(app.db) };
  });
  const redis = await probe(redisUrl, async () => {
    await assertRedisAnswers(redisUrl);
    const queues: Record<string, Record<string, number>> = {};
    for (const name of Object.values(QUEUE_NAMES)) {
      queues[name] = await app.queues
        .queue(name)
        .getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
    }
    const clients = await app.queues.queue(QUEUE_NAMES.ingest).getWorkers();
    const workers: ConnectedWorker[] = [];
    for (const client of clients) {
      const identity = parseWorkerName(client.name ?? '');
      if (!identity) continue;
      workers.push({
        ...identity,
        idleSeconds: Number(client.idle ?? 0),
        ageSeconds: Number(client.age ?? 0),
      });
    }
    return { queues, workers };
  });
  return { postgres, redis };
}

async function probe<T extends object>(
  url: string,
  check: () => Promise<T>,
): Promise<ServiceHealth & Partial<T>> {
  try {
    return { url: maskUrl(url), ok: true, ...(await check()) };
  } catch (error) {
    if (!isEnvdataError(error)) throw error;
    return { url: maskUrl(url), ok: false, problem: error.message } as ServiceHealth & Partial<T>;
  }
}
