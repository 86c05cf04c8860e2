import { performance } from 'node:perf_hooks';
import type { RedisClient } from '../queue/create-redis.js';
import type { RedisKeyspace } from '../queue/redis-keyspace.js';
import type { Reservation, ReserveOptions, WindowCounters } from './window-counters.js';

/**
 * `nextCallSlot` in one script, on Redis's clock: the slots newest first in a list. ARGV: max,
 * window, horizon, the slot moving (-1: none), spacing. Returns the wait, the slot (-1: none, beyond the
 * horizon).
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local horizon = tonumber(ARGV[3])
local moving = tonumber(ARGV[4])
local spacing = tonumber(ARGV[5])
while true do
  local oldest = redis.call('LINDEX', KEYS[1], -1)
  if not oldest or tonumber(oldest) > now - window then break end
  redis.call('RPOP', KEYS[1])
end
if moving >= 0 and redis.call('LREM', KEYS[1], 1, ARGV[4]) == 1 then
  local latest = redis.call('LINDEX', KEYS[1], 0)
  if not latest or tonumber(latest) < moving + window then
    local slot = math.max(now, moving)
    local slots = redis.call('LRANGE', KEYS[1], 0, -1)
    local i = 1
    while i <= #slots and tonumber(slots[i]) > slot do i = i + 1 end
    if i > #slots then
      redis.call('RPUSH', KEYS[1], slot)
    else
      redis.call('LINSERT', KEYS[1], 'BEFORE', slots[i], slot)
    end
    redis.call('PEXPIRE', KEYS[1], slot - now + window * 2)
    return {slot - now, slot}
  end
end
local slot = now
local latest = redis.call('LINDEX', KEYS[1], 0)
if latest and tonumber(latest) + spacing > slot then slot = tonumber(latest) + spacing end
if redis.call('LLEN', KEYS[1]) >= max then
  local opens = tonumber(redis.call('LINDEX', KEYS[1], max - 1)) + window
  if opens > slot then slot = opens end
end
if slot - now > horizon then return {slot - now, -1} end
redis.call('LPUSH', KEYS[1], slot)
redis.call('PEXPIRE', KEYS[1], slot - now + window * 2)
return {slot - now, slot}
`;

/** One slot at that instant out of the list (the list stays sorted). */
const RELEASE = `redis.call('LREM', KEYS[1], 1, ARGV[1])`;

/** No horizon: far beyond any window the pacer spaces. */
const NO_HORIZON = 1e12;

/**
 * The window counters as Redis keys, each in the installation's one slot beside BullMQ's on a
 * cluster: a fixed window's count (`RedisKeyspace.budgetCounter`: `<prefix>:envdata:budget:
 * <durationMs>:<window>`, INCR + PEXPIRE in one MULTI) and a rule's call slots as a list
 * (`RedisKeyspace.paceSlots`: `<prefix>:envdata:pace:<rule>`).
 */
export class RedisWindowCounters implements WindowCounters {
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

  async reserve(
    rule: string,
    max: number,
    windowMs: number,
    options: ReserveOptions = {},
  ): Promise<Reservation> {
    const key = this.keyspace.paceSlots(rule);
    const horizon = options.horizonMs ?? NO_HORIZON;
    const moving = options.moving ?? -1;
    const askedAt = performance.now();
    const [waitMs, slot] = (await this.redis.eval(
      RESERVE,
      1,
      key,
      max,
      windowMs,
      horizon,
      String(moving),
      options.spacingMs ?? 0,
    )) as [number, number];
    return {
      waitMs: Number(waitMs),
      slot: Number(slot) < 0 ? undefined : Number(slot),
      askedAt,
      answeredAt: performance.now(),
    };
  }

  async release(rule: string, slot: number): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.keyspace.paceSlots(rule), String(slot));
  }

  async roundTrip(): Promise<Pick<Reservation, 'askedAt' | 'answeredAt'>> {
    const askedAt = performance.now();
    await this.redis.ping();
    return { askedAt, answeredAt: performance.now() };
  }
}
