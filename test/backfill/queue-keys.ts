import { Redis } from 'ioredis';

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
    return keys;
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
