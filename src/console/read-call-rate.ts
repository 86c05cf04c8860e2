import { sql, type Kysely } from 'kysely';
import type { RateLimitRule } from '../config/rate-limit.js';
import type { Database } from '../warehouse/schema.js';

/** The console's rate-limit chart: calls and 429s per minute of the last hour, every worker. */
export interface CallRate {
  /** Each minute's start, epoch seconds, oldest first; one per minute, none left out. */
  readonly minutes: readonly number[];
  /** Calls per second over each minute. */
  readonly callsPerSecond: readonly number[];
  /** Answers 429 in each minute. */
  readonly throttled: readonly number[];
  /** Other failures in each minute. */
  readonly failed: readonly number[];
  /** The tightest configured limit as calls per second (ENVDATA_RATE_LIMIT); `null`: off. */
  readonly limitPerSecond: number | null;
  /** The configured rules as written (`20/s`, `50000/day`). */
  readonly limits: readonly string[];
}

/**
 * Calls per second and 429s per minute over the last `minutes` minutes, summed over endpoints
 * from `envdata.api_call_minute` (which every worker fills), beside the configured limit.
 */
export async function readCallRate(
  db: Kysely<Database>,
  rules: readonly RateLimitRule[],
  minutes = 60,
): Promise<CallRate> {
  const { rows } = await sql<{ at: number; calls: number; throttled: number; failed: number }>`
    select extract(epoch from m)::int8::float8 as at,
      coalesce(sum(a.calls), 0)::int as calls, coalesce(sum(a.throttled), 0)::int as throttled,
      coalesce(sum(a.failed), 0)::int as failed
    from generate_series(date_trunc('minute', now()) - make_interval(mins => ${minutes - 1}),
      date_trunc('minute', now()), interval '1 minute') m
    left join envdata.api_call_minute a on a.minute = m
    group by m order by m`.execute(db);
  const perSecond = rules.map((r) => r.max / (r.durationMs / 1_000));
  return {
    minutes: rows.map((r) => r.at),
    callsPerSecond: rows.map((r) => r.calls / 60),
    throttled: rows.map((r) => r.throttled),
    failed: rows.map((r) => r.failed),
    limitPerSecond: perSecond.length === 0 ? null : Math.min(...perSecond),
    limits: rules.map((r) => r.label),
  };
}
