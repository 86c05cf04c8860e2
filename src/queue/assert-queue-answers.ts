import type { QueueBackend } from '../config/config.js';
import { assertDatabaseAnswers } from '../warehouse/create-database.js';
import { assertRedisAnswers } from './create-redis.js';
import type { RedisTarget } from './redis-target.js';

/**
 * Checks that the queue's backend answers: Redis (`REDIS_UNAVAILABLE`), or on the `postgres`
 * backend the database (`DATABASE_UNAVAILABLE`), each with the operator's next step.
 */
export async function assertQueueAnswers(options: {
  backend?: QueueBackend;
  /** The Redis backend's Redis: REDIS_URL, or a cluster (`redisTargetOf(config)`). */
  redis: RedisTarget;
  databaseUrl?: string;
}): Promise<void> {
  if ((options.backend ?? 'redis') === 'redis') await assertRedisAnswers(options.redis);
  else await assertDatabaseAnswers(options.databaseUrl!);
}
