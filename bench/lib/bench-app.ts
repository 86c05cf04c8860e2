import type { Kysely } from 'kysely';
import { createApp, type App } from '../../src/app.js';
import type { QueueBackend } from '../../src/config/config.js';
import { configFromDefaults } from '../../src/config/load-config.js';
import { runProgress, type RunProgress } from '../../src/ledger/run-progress.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import type { Database } from '../../src/warehouse/schema.js';

/** Where one backend's measurements keep the warehouse and the queue. */
export interface BenchTarget {
  readonly backend: QueueBackend;
  /** The bench's own database: the warehouse, and on `postgres` the queue (`envdata_queue`). */
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** The bench's own BullMQ key prefix on Redis; unused on `postgres`. */
  readonly prefix: string;
}

/**
 * An app on `target` with the simulator's demo key and raw archiving on; `env` adds settings
 * (ENVDATA_BASE_URL, ENVDATA_RATE_LIMIT, …). `queue` names a separate queue on Redis (a prefix
 * of its own, `<prefix>-<queue>`); the Postgres backend has one queue per database.
 */
export function benchApp(
  target: BenchTarget,
  env: Readonly<Record<string, string>> = {},
  queue?: string,
): App {
  return createApp(
    configFromDefaults({
      DATABASE_URL: target.databaseUrl,
      REDIS_URL: target.redisUrl,
      ENVDATA_QUEUE_BACKEND: target.backend,
      ENVDATA_QUEUE_PREFIX: queue === undefined ? target.prefix : `${target.prefix}-${queue}`,
      ENVDATA_API_KEY: DEMO_API_KEY,
      // The database is dropped with FORCE at the end: idle connections' warnings are noise.
      LOG_LEVEL: 'error',
      ENVDATA_ARCHIVE_RAW: 'true',
      ...env,
    }),
  );
}

/** Polls the ledger until the run is no longer running. */
export async function waitForRun(db: Kysely<Database>, runId: number): Promise<RunProgress> {
  for (;;) {
    const progress = await runProgress(db, runId);
    if (!progress) throw new Error(`run ${runId} is not in the ledger`);
    if (progress.status !== 'running') return progress;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
