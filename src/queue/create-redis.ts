import { Redis, type RedisOptions } from 'ioredis';
import { trackResource } from '../lifecycle/open-resources.js';
import { maskUrl } from '../warehouse/database-url.js';
import { redisUnavailable } from './redis-unavailable.js';

/**
 * - `worker`: blocking connections of BullMQ workers; they must wait out Redis restarts
 *   (`maxRetriesPerRequest: null`, as BullMQ requires).
 * - `client`: queues and commands; fail a command after a few retries so a CLI never hangs.
 */
export type RedisRole = 'worker' | 'client';

/**
 * The Redis seam: every ioredis connection of envdata is made here. Close it with `quit()`
 * (or `disconnect()`).
 */
export function createRedis(url: string, role: RedisRole, name: string = role): Redis {
  const options: RedisOptions = {
    maxRetriesPerRequest: role === 'worker' ? null : 3,
    enableReadyCheck: true,
    connectionName: `envdata:${name}`,
    // Reconnect with a capped backoff; never give up on a long backfill. The cap is short so
    // that work resumes within a couple of seconds of Redis coming back.
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2_000),
  };
  const redis = new Redis(url, options);
  // ioredis emits `error` on every failed reconnect; callers watch state, not this stream.
  redis.on('error', () => undefined);
  const untrack = trackResource('redis', `${maskUrl(url)} (${name})`, async () => {
    redis.disconnect();
  });
  // Untrack as soon as the owner asks to close, not when the socket's `end` arrives later.
  const quit = redis.quit.bind(redis);
  const disconnect = redis.disconnect.bind(redis);
  redis.quit = (async (...args: Parameters<typeof quit>) => {
    untrack();
    return quit(...args);
  }) as typeof redis.quit;
  redis.disconnect = (reconnect?: boolean) => {
    if (!reconnect) untrack();
    disconnect(reconnect);
  };
  redis.once('end', untrack);
  return redis;
}

/** Checks that Redis answers a PING; throws `REDIS_UNAVAILABLE` with the operator's next step. */
export async function assertRedisAnswers(url: string, timeoutMs = 5_000): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw redisUnavailable(url, error);
  } finally {
    redis.disconnect();
  }
}
