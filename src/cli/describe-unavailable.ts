import type { Config } from '../config/config.js';
import { coerceError } from '../errors/coerce-error.js';
import { assertRedisAnswers } from '../queue/create-redis.js';
import { redisTargetOf } from '../queue/redis-target.js';
import { assertDatabaseAnswers } from '../warehouse/create-database.js';

/**
 * The message for a command that Postgres or Redis went away under (a lost connection, not a
 * bug): the one-line message of each that does not answer now, or, when both answer again, that
 * the connection was lost and the command can simply be run again.
 */
export async function describeUnavailable(config: Config, error: Error): Promise<string> {
  const probes = await Promise.all([
    assertDatabaseAnswers(config.databaseUrl).then(
      () => undefined,
      (e: unknown) => coerceError(e).message,
    ),
    config.queueBackend === 'redis'
      ? assertRedisAnswers(redisTargetOf(config)).then(
          () => undefined,
          (e: unknown) => coerceError(e).message,
        )
      : undefined,
  ]);
  const down = probes.filter((m) => m !== undefined);
  if (down.length > 0) return down.join('\nenvdata: ');
  return `the connection to Postgres or Redis was lost (${error.message}); both answer again: run the command again`;
}
