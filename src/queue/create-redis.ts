import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { backoffMs } from '../lifecycle/backoff.js';
import { trackResource } from '../lifecycle/open-resources.js';
import { redisUnavailable } from './redis-unavailable.js';
import { clusterNodesOf, describeRedisTarget, urlOf, type RedisTarget } from './redis-target.js';

/**
 * - `worker`: blocking connections of BullMQ workers; they must wait out Redis restarts
 *   (`maxRetriesPerRequest: null`, as BullMQ requires).
 * - `client`: queues and commands; fail a command after a few retries so a CLI never hangs.
 */
export type RedisRole = 'worker' | 'client';

/** A connection to one Redis or to a Redis Cluster: BullMQ and envdata use either alike. */
export type RedisClient = Redis | Cluster;

/**
 * Reconnect with a capped backoff; never give up on a long backfill. The cap is short so that
 * work resumes within a couple of seconds of Redis coming back.
 */
const reconnectDelay = (times: number) => backoffMs(times, { baseMs: 100, capMs: 2_000 });

/**
 * The Redis seam: every ioredis connection of envdata is made here, to one Redis or, when the
 * target lists cluster nodes, to a Redis Cluster (`Cluster`, with the same per-node options).
 * Close it with `quit()` (or `disconnect()`).
 */
export function createRedis(
  target: RedisTarget,
  role: RedisRole,
  name: string = role,
): RedisClient {
  const options: RedisOptions = {
    ...credentialsOf(urlOf(target)),
    maxRetriesPerRequest: role === 'worker' ? null : 3,
    enableReadyCheck: true,
    connectionName: `envdata:${name}`,
  };
  const nodes = clusterNodesOf(target);
  const redis: RedisClient = nodes
    ? new Cluster([...nodes], {
        // BullMQ reads `redisOptions` of a cluster as it reads a Redis's options (it requires
        // `maxRetriesPerRequest: null` there for its blocking connections).
        redisOptions: options,
        enableReadyCheck: true,
        clusterRetryStrategy: reconnectDelay,
      } satisfies ClusterOptions)
    : new Redis(urlOf(target), { ...options, retryStrategy: reconnectDelay });
  // ioredis emits `error` on every failed reconnect; callers watch state, not this stream.
  redis.on('error', () => undefined);
  const untrack = trackResource('redis', `${describeRedisTarget(target)} (${name})`, async () => {
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

/**
 * Checks that Redis answers a PING, or that the cluster answers and says `cluster_state:ok`
 * (every slot served); throws `REDIS_UNAVAILABLE` with the operator's next step.
 */
export async function assertRedisAnswers(target: RedisTarget, timeoutMs = 5_000): Promise<void> {
  const nodes = clusterNodesOf(target);
  const nodeOptions: RedisOptions = {
    ...credentialsOf(urlOf(target)),
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
  };
  const redis: RedisClient = nodes
    ? new Cluster([...nodes], {
        lazyConnect: true,
        redisOptions: nodeOptions,
        clusterRetryStrategy: () => null,
        enableOfflineQueue: false,
        // The ready check is the `cluster_state:ok` asked below, with its answer in the error.
        enableReadyCheck: false,
        slotsRefreshTimeout: timeoutMs,
      })
    : new Redis(urlOf(target), { ...nodeOptions, lazyConnect: true, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    await Promise.race([answers(redis), timeout]);
  } catch (error) {
    throw redisUnavailable(target, error);
  } finally {
    clearTimeout(timer);
    redis.disconnect();
  }
}

/** PING; on a cluster also CLUSTER INFO, which must say every slot is served. */
async function answers(redis: RedisClient): Promise<void> {
  await redis.connect();
  if (!(redis instanceof Cluster)) {
    await redis.ping();
    return;
  }
  const info = String(await redis.cluster('INFO'));
  const state = /cluster_state:(\w+)/.exec(info)?.[1];
  if (state !== 'ok') throw new Error(`the cluster says cluster_state:${state ?? 'unknown'}`);
  await Promise.all(redis.nodes('master').map((node) => node.ping()));
}

/**
 * The user, password and TLS of a `redis://` or `rediss://` URL, as options a cluster's nodes
 * take too (a cluster has no one URL; its nodes share REDIS_URL's credentials).
 */
export function credentialsOf(url: string): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  const parsed = new URL(url);
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
