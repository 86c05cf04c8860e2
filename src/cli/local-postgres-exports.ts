import type { Config } from '../config/config.js';
import { assertRedisAnswers } from '../queue/create-redis.js';
import { redisTargetOf } from '../queue/redis-target.js';

/** How long the check for a Redis at REDIS_URL waits; a closed port answers at once. */
const REDIS_CHECK_MS = 2_000;

/**
 * Whether the queue should live in PostgreSQL: it already does (ENVDATA_QUEUE_BACKEND=postgres),
 * or nothing answers at REDIS_URL. Never instead of a Redis Cluster the operator set
 * (REDIS_CLUSTER_NODES): one that does not answer is reported as such by the commands.
 */
export async function queueNeedsPostgres(config: Config): Promise<boolean> {
  if (config.queueBackend === 'postgres') return true;
  if (config.redisClusterNodes.length > 0) return false;
  return assertRedisAnswers(redisTargetOf(config), REDIS_CHECK_MS).then(
    () => false,
    () => true,
  );
}

/**
 * The lines that point a shell at the local PostgreSQL, so that the README's commands go on with
 * the same data: `export DATABASE_URL=…` (when given), and the queue's backend when it must be
 * PostgreSQL.
 */
export function localPostgresExports(settings: {
  databaseUrl?: string;
  queueOnPostgres: boolean;
}): string[] {
  return [
    ...(settings.databaseUrl === undefined
      ? []
      : [`  export DATABASE_URL=${settings.databaseUrl}`]),
    ...(settings.queueOnPostgres ? ['  export ENVDATA_QUEUE_BACKEND=postgres'] : []),
  ];
}
