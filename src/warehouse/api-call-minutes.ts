import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** One process's calls of one endpoint in one minute, to add to `envdata.api_call_minute`. */
export interface ApiCallMinute {
  /** The minute's start (UTC, whole minute). */
  readonly minute: Date;
  /** The endpoint's logical name (`pollen_history`…). */
  readonly endpoint: string;
  readonly calls: number;
  /** Of which answered 429. */
  readonly throttled: number;
  /** Of which failed otherwise: any other non-2xx status, or a transport error. */
  readonly failed: number;
}

/**
 * Adds `counts` to `envdata.api_call_minute` in one statement: every worker adds its own, so
 * the table holds the installation's calls per minute and endpoint.
 */
export async function addApiCallMinutes(
  db: Kysely<Database>,
  counts: readonly ApiCallMinute[],
): Promise<void> {
  if (counts.length === 0) return;
  // Sorted by key: two workers flushing the same minutes lock the rows in the same order.
  const rows = [...counts].sort(
    (a, b) => a.minute.getTime() - b.minute.getTime() || a.endpoint.localeCompare(b.endpoint),
  );
  await sql`
    insert into envdata.api_call_minute as m (minute, endpoint, calls, throttled, failed)
    select * from unnest(${rows.map((r) => r.minute)}::timestamptz[],
      ${rows.map((r) => r.endpoint)}::text[], ${rows.map((r) => r.calls)}::int[],
      ${rows.map((r) => r.throttled)}::int[], ${rows.map((r) => r.failed)}::int[])
    on conflict (minute, endpoint) do update set
      calls = m.calls + excluded.calls,
      throttled = m.throttled + excluded.throttled,
      failed = m.failed + excluded.failed`.execute(db);
}

/** Deletes the minutes before `before`; returns how many. */
export async function deleteApiCallMinutesBefore(
  db: Kysely<Database>,
  before: Date,
): Promise<number> {
  const result = await db
    .deleteFrom('api_call_minute')
    .where('minute', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
