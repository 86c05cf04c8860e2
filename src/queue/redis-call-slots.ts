import { performance } from 'node:perf_hooks';
import type { RedisClient } from './create-redis.js';
import type { RedisKeyspace } from './redis-keyspace.js';
import type { CallSlots, Reservation } from './call-slots.js';

/**
 * The latest `max` slots, newest first, in a list; one script reserves the next, on Redis's
 * clock. The `max`-th latest slot opens the next one `windowMs` later.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local slot = now
if redis.call('LLEN', KEYS[1]) >= max then
  local opens = tonumber(redis.call('LINDEX', KEYS[1], max - 1)) + window
  if opens > slot then slot = opens end
end
redis.call('LPUSH', KEYS[1], slot)
redis.call('LTRIM', KEYS[1], 0, max - 1)
redis.call('PEXPIRE', KEYS[1], slot - now + window * 2)
return slot - now
`;

/** Call slots as Redis lists (`RedisKeyspace.paceSlots`: `<prefix>:envdata:pace:<rule>`). */
export class RedisCallSlots implements CallSlots {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyspace: RedisKeyspace,
  ) {}

  async reserve(rule: string, max: number, windowMs: number): Promise<Reservation> {
    const key = this.keyspace.paceSlots(rule);
    const askedAt = performance.now();
    const waitMs = Number(await this.redis.eval(RESERVE, 1, key, max, windowMs));
    return { waitMs, askedAt, answeredAt: performance.now() };
  }

  async roundTrip(): Promise<Pick<Reservation, 'askedAt' | 'answeredAt'>> {
    const askedAt = performance.now();
    await this.redis.ping();
    return { askedAt, answeredAt: performance.now() };
  }
}
