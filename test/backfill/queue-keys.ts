import { Redis } from 'ioredis';
import pg from 'pg';
import { POSTGRES_QUEUE_SCHEMA } from '../../src/queue/postgres-queue-schema.js';
import type { TestEnvironment } from '../harness/test-environment.js';

/** Every Redis key under `prefix:` (BullMQ's queues, the call budget), by SCAN. */
export async function queueKeys(redisUrl: string, prefix: string): Promise<string[]> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    // SCAN's order follows the hash table, which rehashes as keys come and go: sort for comparing.
    return keys.sort();
  } finally {
    redis.disconnect();
  }
}

/**
 * Loses this test file's queue state as a Redis restart without persistence would: deletes every
 * key under `prefix:` with SCAN + UNLINK. Never FLUSHDB: other test files share the Redis.
 */
export async function deleteQueueKeys(redisUrl: string, prefix: string): Promise<number> {
  const keys = await queueKeys(redisUrl, prefix);
  if (keys.length === 0) return 0;
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    for (let i = 0; i < keys.length; i += 500) await redis.unlink(...keys.slice(i, i + 500));
    return keys.length;
  } finally {
    redis.disconnect();
  }
}

/**
 * What this test file's queue holds, on either backend: its Redis keys, or on Postgres the jobs
 * of BullMQ's tables (`<queue>:<id>`) and the call-budget rows. Empty when nothing was enqueued.
 */
export async function queueState(env: TestEnvironment): Promise<string[]> {
  if (env.queueBackend === 'redis') return queueKeys(env.redisUrl, env.queuePrefix);
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    const { rows: budget } = await client.query<{ key: string }>(
      `select 'call_budget:' || duration_ms || ':' || window_index as key from envdata.call_budget`,
    );
    // BullMQ creates its tables on first use: none yet, no job.
    const { rows: exists } = await client.query<{ here: boolean }>(
      `select to_regclass('${POSTGRES_QUEUE_SCHEMA}.job') is not null as here`,
    );
    if (!exists[0]!.here) return budget.map((r) => r.key).sort();
    const { rows: jobs } = await client.query<{ key: string }>(
      `select queue || ':' || id as key from ${POSTGRES_QUEUE_SCHEMA}.job`,
    );
    return [...jobs, ...budget].map((r) => r.key).sort();
  } finally {
    await client.end();
  }
}
