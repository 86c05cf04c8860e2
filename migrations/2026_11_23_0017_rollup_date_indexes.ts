import { sql, type Kysely } from 'kysely';

/**
 * Indexes the daily rollups by local day. Their primary keys start with `location_id`, which
 * serves one location's days; a dashboard over every location for a month (docs/warehouse.md,
 * examples 1 and 3) otherwise reads the whole rollup: at 1,000 locations × 30 years that is
 * 11 million weather days per query. `bench:warehouse` measured the need.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create index pollen_daily_rollup_date
      on envdata.pollen_daily_rollup (local_date, pollen_type);
    create index weather_daily_rollup_date on envdata.weather_daily_rollup (local_date);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index envdata.pollen_daily_rollup_date;
    drop index envdata.weather_daily_rollup_date;
  `.execute(db);
}
