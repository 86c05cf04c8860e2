import { sql, type Kysely } from 'kysely';

/**
 * Statistics on `pollen_type::text` of the pollen daily rollup: the expression
 * `analytics.pollen_daily` exposes, and what BI queries filter on (`pollen_type = 'grass'`).
 * Without them the planner guesses that such a filter keeps 0.5 % of the rows (it keeps a third)
 * and, joining the daily views, probes the weather rollup once per pollen day:
 * docs/warehouse.md example 3 took 151 ms in `bench:warehouse` (200 locations), 89 ms with them.
 * An index cannot serve the expression (an enum's text is only stable, not immutable);
 * statistics can.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create statistics envdata.pollen_daily_rollup_type_text
      on ((pollen_type::text)) from envdata.pollen_daily_rollup;
    analyze envdata.pollen_daily_rollup;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop statistics envdata.pollen_daily_rollup_type_text`.execute(db);
}
