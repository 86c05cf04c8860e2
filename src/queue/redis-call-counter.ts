import type { CallCounter } from './call-counter.js';
import type { RedisClient } from './create-redis.js';
import type { RedisKeyspace } from './redis-keyspace.js';

/**
 * The call counters as Redis keys (`RedisKeyspace.budgetCounter`: `<prefix>:envdata:budget:
 * <durationMs>:<window>`), INCR + PEXPIRE in one MULTI: on a cluster the key is in the
 * installation's one slot, beside BullMQ's.
 */
export class RedisCallCounter implements CallCounter {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyspace: RedisKeyspace,
  ) {}

  async increment(durationMs: number, windowIndex: number): Promise<number> {
    const key = this.keyspace.budgetCounter(durationMs, windowIndex);
    const [[, used]] = (await this.redis
      .multi()
      .incr(key)
      .pexpire(key, durationMs * 2)
      .exec()) as [[Error | null, number]];
    return used;
  }
}
