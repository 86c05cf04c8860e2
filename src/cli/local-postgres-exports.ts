import type { Config } from '../config/config.js';
import { assertRedisAnswers } from '../queue/create-redis.js';

/** How long the check for a Redis at REDIS_URL waits; a closed port answers at once. */
const REDIS_CHECK_MS = 2_000;

/**
 * Whether the queue should live in PostgreSQL: it already does (ENVDATA_QUEUE_BACKEND=postgres),
 * or nothing answers at REDIS_URL.
 */
export async function queueNeedsPostgres(config: Config): Promise<boolean> {
  if (config.queueBackend === 'postgres') return true;
  return assertRedisAnswers(config.redisUrl, REDIS_CHECK_MS).then(
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
