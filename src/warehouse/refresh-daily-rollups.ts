import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Recomputes the per-local-day rollups behind `analytics.pollen_daily` and
 * `analytics.weather_daily` for the days landings marked dirty, and only those. Safe to run
 * from several processes: each dirty entry is consumed once. Returns the rollup rows written.
 */
export async function refreshDailyRollups(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ n: number }>`select envdata.refresh_daily_rollups() as n`.execute(
    db,
  );
  return rows[0]?.n ?? 0;
}
