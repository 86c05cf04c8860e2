import type { Redis } from 'ioredis';
import type { RateLimitRule } from '../config/rate-limit.js';

/**
 * The rate-limit rules BullMQ's queue limiter does not cover (it takes one: the tightest), kept
 * as fixed windows in Redis so every worker on every host draws from the same budget, e.g. the
 * `50000/day` of `20/s,50000/day`.
 */
export class CallBudget {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly rules: readonly RateLimitRule[],
  ) {}

  /** Takes one call from every rule; returns 0, or how long to wait when a rule is spent. */
  async take(now = Date.now()): Promise<number> {
    let wait = 0;
    for (const rule of this.rules) {
      const window = Math.floor(now / rule.durationMs);
      const key = `${this.prefix}:budget:${rule.durationMs}:${window}`;
      const [[, used]] = (await this.redis
        .multi()
        .incr(key)
        .pexpire(key, rule.durationMs * 2)
        .exec()) as [[Error | null, number]];
      if (used > rule.max) wait = Math.max(wait, (window + 1) * rule.durationMs - now);
    }
    return wait;
  }
}

/** BullMQ's limiter takes the tightest rule; the others go to a `CallBudget`. */
export function splitRateLimits(rules: readonly RateLimitRule[]): {
  limiter: RateLimitRule | undefined;
  others: RateLimitRule[];
} {
  const sorted = [...rules].sort((a, b) => a.durationMs - b.durationMs);
  return { limiter: sorted[0], others: sorted.slice(1) };
}
