import type { ShapeCost } from './shape-cost.js';
import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../../src/queue/create-redis.js';
import type { App } from '../../src/app.js';
import type { QueueBackend } from '../../src/config/config.js';
import type { Location } from '../../src/locations/location.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { ensureDatabase } from '../../src/warehouse/ensure-database.js';
import { migrateToLatest } from '../../src/warehouse/migrate-to-latest.js';
import { benchApp, type BenchTarget } from './bench-app.js';
import type { BenchDatabase } from './bench-database.js';
import { addBenchLocations } from './bench-locations.js';
import type { EndToEnd } from './end-to-end-run.js';
import type { FullQueuePlan } from './full-queue-plan.js';
import type { QuotaCheckCost } from './quota-check-cost.js';
import type { RateLimited } from './rate-limited-run.js';

/** Parts 1 to 3 of bench:backfill on one queue backend: those measured (`--parts`). */
export interface BackendFigures {
  readonly backend: QueueBackend;
  readonly endToEnd?: EndToEnd;
  /** Part 1: what the shape of one answer costs (`ShapeRecorder.observe`). */
  readonly shapeCost?: ShapeCost;
  /** Part 2: without a quota, then with ENVDATA_QUOTA and ENVDATA_SYNC_RESERVE set. */
  readonly rateLimited?: RateLimited;
  readonly rateLimitedQuota?: RateLimited;
  readonly quotaCheck?: QuotaCheckCost;
  readonly fullQueue?: FullQueuePlan;
}

/** One queue backend's place to measure in: its database, locations and queue prefix. */
export interface BackendRun {
  readonly backend: QueueBackend;
  readonly target: BenchTarget;
  readonly locations: readonly Location[];
  /** An app on the database (no service calls), for the ceilings. */
  readonly app: App;
  /** Removes the queue's keys (Redis), closes the app and drops the database. */
  close(): Promise<void>;
}

/**
 * Prepares `backend` in `database` (created and migrated here; on `postgres` it holds the queue
 * too, its schema created now): registers `locations` locations and, on `redis`, picks a key
 * prefix of its own. Nothing timed later waits on a first connection or a migration.
 */
export async function openBackendRun(
  backend: QueueBackend,
  database: BenchDatabase,
  options: { readonly redisUrl: string; readonly locations: number },
): Promise<BackendRun> {
  const target: BenchTarget = {
    backend,
    databaseUrl: database.url,
    redisUrl: options.redisUrl,
    prefix: `envdata-bench-${randomBytes(3).toString('hex')}`,
  };
  await ensureDatabase(database.url);
  const app = benchApp(target);
  const close = async () => {
    if (backend === 'redis') {
      await removeKeys(app.queues.connection(), target.prefix).catch(() => undefined);
    }
    await app.close();
    await database.drop();
  };
  try {
    await migrateToLatest(app.db, app.logger);
    const locations = await addBenchLocations(app.db, options.locations);
    await app.queues.queue(QUEUE_NAMES.ingest).waitUntilReady();
    return { backend, target, locations, app, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Unlinks every key under `prefix` (the bench's queues: `<prefix>`, `<prefix>-r`, `<prefix>-p`). */
async function removeKeys(redis: RedisClient, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    cursor = next;
    if (keys.length) await redis.unlink(...keys);
  } while (cursor !== '0');
}
