import type { RateLimitRule } from '../config/rate-limit.js';
import type { WindowCounters } from './window-counters.js';

/**
 * The rate-limit rules BullMQ's queue limiter does not cover (it takes one: the tightest), kept
 * as fixed windows beside the queue (`WindowCounters.increment`: Redis keys or a Postgres table)
 * so every worker on every host draws from the same budget, e.g. the `50000/day` of
 * `20/s,50000/day`.
 */
export class CallBudget {
  constructor(
    private readonly counter: Pick<WindowCounters, 'increment'>,
    private readonly rules: readonly RateLimitRule[],
  ) {}

  /** Takes one call from every rule; returns 0, or how long to wait when a rule is spent. */
  async take(now = Date.now()): Promise<number> {
    let wait = 0;
    for (const rule of this.rules) {
      const window = Math.floor(now / rule.durationMs);
      const used = await this.counter.increment(rule.durationMs, window);
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

/**
 * The worker's BullMQ limiter for the tightest rule, or a non-binding one when there is no rule.
 *
 * There is always a limiter because BullMQ honours a pause (`worker.rateLimit`, what a 429 does)
 * only on workers that have one. Without it, the job a 429 puts back is taken again at once by
 * the next free slot, while the first run of that job is still being wound up; BullMQ then stops
 * renewing the second run's lock, the job stalls and runs a third time: one chunk, two calls.
 *
 * The rule's window gets a margin. BullMQ counts a call when its job starts and opens its window
 * with the first one; the service counts the call when the request arrives, a few milliseconds
 * later and not always the same few. At exactly the plan's rate, the first calls of the next
 * window could then arrive while the service's window is still open: a 429, and every worker
 * pauses for a whole `Retry-After` second. A tenth of the window (at most 250 ms) absorbs that.
 */
export function queueLimiter(rule: RateLimitRule | undefined): { max: number; duration: number } {
  if (rule === undefined) return { max: 1_000_000_000, duration: 1_000 };
  return {
    max: rule.max,
    duration: rule.durationMs + Math.min(250, Math.ceil(rule.durationMs / 10)),
  };
}
