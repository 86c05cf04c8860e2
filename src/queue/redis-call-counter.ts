import type { Redis } from 'ioredis';
import type { CallCounter } from './call-counter.js';

/** The call counters as Redis keys `<prefix>:budget:<durationMs>:<window>`, INCR + PEXPIRE. */
export class RedisCallCounter implements CallCounter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async increment(durationMs: number, windowIndex: number): Promise<number> {
    const key = `${this.prefix}:budget:${durationMs}:${windowIndex}`;
    const [[, used]] = (await this.redis
      .multi()
      .incr(key)
      .pexpire(key, durationMs * 2)
      .exec()) as [[Error | null, number]];
    return used;
  }
}
