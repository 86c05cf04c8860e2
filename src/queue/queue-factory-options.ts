import type { Kysely } from 'kysely';
import type { QueueBackend } from '../config/config.js';
import type { RedisNode } from '../config/redis-cluster-nodes.js';
import type { Database } from '../warehouse/schema.js';

export interface QueueFactoryOptions {
  /** Where BullMQ keeps the queue (ENVDATA_QUEUE_BACKEND); default `redis`. */
  backend?: QueueBackend;
  redisUrl: string;
  /**
   * The nodes of a Redis Cluster (REDIS_CLUSTER_NODES) to use instead of `redisUrl`, with its
   * credentials and TLS; empty or absent: one Redis at `redisUrl`.
   */
  redisClusterNodes?: readonly RedisNode[];
  /** The warehouse's database; with the `postgres` backend, the queue's too. */
  databaseUrl?: string;
  /**
   * ENVDATA_QUEUE_PREFIX; Redis only. Every key is named from it by `RedisKeyspace` (on a
   * cluster, as the hash tag `{prefix}`).
   */
  prefix: string;
  /**
   * The warehouse pool, for what the `postgres` backend keeps in our own tables (the call budget)
   * and reads of `pg_stat_activity` (the workers connected). Called on first use only.
   */
  db?: () => Kysely<Database>;
  /**
   * How often every worker this factory creates reports itself alive (ENVDATA_WORKER_HEARTBEAT);
   * its beat expires after three of these. Default 5 s.
   */
  heartbeatMs?: number;
}

/** ENVDATA_WORKER_HEARTBEAT's default. */
export const DEFAULT_HEARTBEAT_MS = 5_000;
