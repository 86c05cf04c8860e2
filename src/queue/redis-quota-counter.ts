import type { RedisClient } from './create-redis.js';
import type { RedisKeyspace } from './redis-keyspace.js';
import type { QuotaCaps, QuotaCounter, QuotaPeriods, QuotaTake } from './quota-counter.js';

/**
 * Check and count in one step, so workers on several hosts never both take the last call:
 * KEYS day, month; ARGV day cap, month cap, day keep ms, month keep ms.
 * Returns granted (1/0), the refusing window (0 none, 1 day, 2 month), day and month counts.
 */
const TAKE = `
local d = tonumber(redis.call('GET', KEYS[1]) or '0')
local m = tonumber(redis.call('GET', KEYS[2]) or '0')
if d >= tonumber(ARGV[1]) then return {0, 1, d, m} end
if m >= tonumber(ARGV[2]) then return {0, 2, d, m} end
d = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
m = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {1, 0, d, m}
`;

/** KEYS the window's counter; ARGV the cap it rises to, keep ms. */
const SPEND = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1
`;

/**
 * The quota counters as Redis keys (`RedisKeyspace.quotaCounter`: `<prefix>:envdata:quota:day:
 * 2026-11-26`), taken by one Lua script: on a cluster both keys are in the installation's one
 * slot, beside BullMQ's.
 */
export class RedisQuotaCounter implements QuotaCounter {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyspace: RedisKeyspace,
  ) {}

  async take(periods: QuotaPeriods, caps: QuotaCaps): Promise<QuotaTake> {
    const [granted, refused, day, month] = (await this.redis.eval(
      TAKE,
      2,
      this.keyspace.quotaCounter('day', periods.day),
      this.keyspace.quotaCounter('month', periods.month),
      caps.day,
      caps.month,
      Math.ceil(periods.dayKeepMs),
      Math.ceil(periods.monthKeepMs),
    )) as [number, number, number, number];
    return {
      granted: granted === 1,
      refusedBy: refused === 1 ? 'day' : refused === 2 ? 'month' : undefined,
      dayUsed: day,
      monthUsed: month,
    };
  }

  async spend(periods: QuotaPeriods, window: 'day' | 'month', cap: number): Promise<void> {
    const period = window === 'day' ? periods.day : periods.month;
    const keepMs = window === 'day' ? periods.dayKeepMs : periods.monthKeepMs;
    await this.redis.eval(
      SPEND,
      1,
      this.keyspace.quotaCounter(window, period),
      cap,
      Math.ceil(keepMs),
    );
  }

  async used(periods: QuotaPeriods): Promise<{ day: number; month: number }> {
    const [day, month] = await this.redis.mget(
      this.keyspace.quotaCounter('day', periods.day),
      this.keyspace.quotaCounter('month', periods.month),
    );
    return { day: Number(day ?? 0), month: Number(month ?? 0) };
  }
}
