import { sql, type Kysely } from 'kysely';

/** Weather measures of the daily rollup (as in 0004): column in the view → expression over weather_hourly. */
const WEATHER_MEASURES: readonly [string, string][] = [
  ['temperature_c', 'temperature_c'],
  ['apparent_temperature_c', 'apparent_temperature_c'],
  ['dew_point_c', 'dew_point_c'],
  ['humidity_pct', 'humidity_fraction * 100'],
  ['pressure_hpa', 'pressure_hpa'],
  ['wind_speed_ms', 'wind_speed_ms'],
  ['wind_gust_ms', 'wind_gust_ms'],
  ['cloud_cover_pct', 'cloud_cover_fraction * 100'],
  ['visibility_km', 'visibility_km'],
  ['uv_index', 'uv_index'],
  ['ozone_du', 'ozone_du'],
  ['precip_intensity_mm_h', 'precip_intensity_mm_h'],
  ['precip_probability_pct', 'precip_probability_fraction * 100'],
];

const rollupNames = WEATHER_MEASURES.map(([name]) => `${name}_min, ${name}_max, ${name}_mean`).join(
  ', ',
);
const rollupUpdates = WEATHER_MEASURES.flatMap(([name]) =>
  ['min', 'max', 'mean'].map((s) => `${name}_${s} = excluded.${name}_${s}`),
).join(', ');

/**
 * `envdata.refresh_daily_rollups()` reading each location's dirty span with one range scan (the
 * body first shipped by editing 0004, which had landed), with daily means and sums that no
 * longer depend on the order the rows are read in.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const weatherAggregates = WEATHER_MEASURES.map(
    ([, e]) => `min(${e}), max(${e}), avg(${e} order by ${e})`,
  ).join(',\n          ');
  await sql
    .raw(
      `
    -- Recomputes the local days touched by envdata.rollup_dirty and consumes those entries.
    -- A local day is [day 00:00, next day 00:00) in the location's time zone, so days across a
    -- daylight-saving change have 23 or 25 hours. Per location and dataset the dirty entries
    -- are merged into one span of whole local days, read with one index range scan and grouped
    -- by local day: a decade of days costs one scan, not one probe per day. The rollups are
    -- the same to the last digit whatever order the rows were stored and are read in.
    create or replace function envdata.refresh_daily_rollups() returns integer language plpgsql as $fn$
    declare
      refreshed integer := 0;
      n integer;
    begin
      create temporary table if not exists pg_temp.rollup_spans (
        location_id integer, dataset envdata.dataset, timezone text, span_from timestamptz,
        span_to timestamptz) on commit drop;
      truncate pg_temp.rollup_spans;

      with dirty as (
        delete from envdata.rollup_dirty returning location_id, dataset, from_at, to_at
      ), merged as (
        select location_id, dataset, min(from_at) as from_at, max(to_at) as to_at
        from dirty group by location_id, dataset
      )
      insert into pg_temp.rollup_spans
      select m.location_id, m.dataset, l.timezone,
        ((m.from_at at time zone l.timezone)::date)::timestamp at time zone l.timezone,
        (((m.to_at - interval '1 microsecond') at time zone l.timezone)::date + 1)::timestamp
          at time zone l.timezone
      from merged m join envdata.location l using (location_id);

      insert into envdata.pollen_daily_rollup as r
        (location_id, local_date, pollen_type, hours, count_min, count_max, count_mean, max_risk_level)
      select p.location_id, (p.observed_at at time zone s.timezone)::date, p.pollen_type, count(*),
        min(p.count), max(p.count), avg(p.count), max(p.risk_level)
      from pg_temp.rollup_spans s
      join envdata.pollen_hourly p
        on p.location_id = s.location_id and p.observed_at >= s.span_from and p.observed_at < s.span_to
      where s.dataset = 'pollen'
      group by p.location_id, 2, p.pollen_type
      on conflict (location_id, local_date, pollen_type) do update set
        hours = excluded.hours, count_min = excluded.count_min, count_max = excluded.count_max,
        count_mean = excluded.count_mean, max_risk_level = excluded.max_risk_level;
      get diagnostics n = row_count;
      refreshed := refreshed + n;

      -- Float addition is not associative, and a scan returns a day's rows in the order they
      -- were stored, which differs between a clean and a resumed backfill: unordered, avg() and
      -- sum() over reals differed in the last digits. So each adds its inputs in ascending
      -- order of the value itself, which makes the result a function of the day's values alone
      -- (equal values are interchangeable). It is the cheap deterministic way: one in-memory
      -- sort of single values per day and measure (full refresh of 10 years x 4 locations:
      -- aggregation +0.3 s, about +40 %), where ordering by observed_at sorts whole rows for
      -- each aggregate (about 2.3x) and averaging numeric casts turns every value into text
      -- and back (about 3.5x; real::numeric also keeps only 6 digits). min, max and count do
      -- not depend on order; pollen's avg(count) is over integers, exact in numeric.
      insert into envdata.weather_daily_rollup as r
        (location_id, local_date, hours, ${rollupNames}, precip_total_mm)
      select w.location_id, (w.observed_at at time zone s.timezone)::date, count(*),
          ${weatherAggregates},
          sum(w.precip_intensity_mm_h order by w.precip_intensity_mm_h)
      from pg_temp.rollup_spans s
      join envdata.weather_hourly w
        on w.location_id = s.location_id and w.observed_at >= s.span_from and w.observed_at < s.span_to
      where s.dataset = 'weather'
      group by w.location_id, 2
      on conflict (location_id, local_date) do update set
        hours = excluded.hours, ${rollupUpdates}, precip_total_mm = excluded.precip_total_mm;
      get diagnostics n = row_count;
      refreshed := refreshed + n;
      return refreshed;
    end
    $fn$;
  `,
    )
    .execute(db);
}

/** Back to the function as 0004 created it: one probe per dirty day, unordered sums. */
export async function down(db: Kysely<any>): Promise<void> {
  const weatherAggregates = WEATHER_MEASURES.map(([, e]) => `min(${e}), max(${e}), avg(${e})`).join(
    ',\n          ',
  );
  await sql
    .raw(
      `
    create or replace function envdata.refresh_daily_rollups() returns integer language plpgsql as $fn$
    declare
      refreshed integer := 0;
      n integer;
    begin
      create temporary table if not exists pg_temp.rollup_days (
        location_id integer, dataset envdata.dataset, local_date date, day_from timestamptz,
        day_to timestamptz) on commit drop;
      truncate pg_temp.rollup_days;

      with dirty as (
        delete from envdata.rollup_dirty returning location_id, dataset, from_at, to_at
      )
      insert into pg_temp.rollup_days
      select distinct d.location_id, d.dataset, day::date,
        (day::date)::timestamp at time zone l.timezone,
        (day::date + 1)::timestamp at time zone l.timezone
      from dirty d
      join envdata.location l using (location_id)
      cross join lateral generate_series(
        (d.from_at at time zone l.timezone)::date,
        ((d.to_at - interval '1 microsecond') at time zone l.timezone)::date,
        interval '1 day') as day;

      insert into envdata.pollen_daily_rollup as r
        (location_id, local_date, pollen_type, hours, count_min, count_max, count_mean, max_risk_level)
      select d.location_id, d.local_date, p.pollen_type, count(*), min(p.count), max(p.count),
        avg(p.count), max(p.risk_level)
      from pg_temp.rollup_days d
      join envdata.pollen_hourly p
        on p.location_id = d.location_id and p.observed_at >= d.day_from and p.observed_at < d.day_to
      where d.dataset = 'pollen'
      group by d.location_id, d.local_date, p.pollen_type
      on conflict (location_id, local_date, pollen_type) do update set
        hours = excluded.hours, count_min = excluded.count_min, count_max = excluded.count_max,
        count_mean = excluded.count_mean, max_risk_level = excluded.max_risk_level;
      get diagnostics n = row_count;
      refreshed := refreshed + n;

      insert into envdata.weather_daily_rollup as r
        (location_id, local_date, hours, ${rollupNames}, precip_total_mm)
      select d.location_id, d.local_date, count(*),
          ${weatherAggregates},
          sum(w.precip_intensity_mm_h)
      from pg_temp.rollup_days d
      join envdata.weather_hourly w
        on w.location_id = d.location_id and w.observed_at >= d.day_from and w.observed_at < d.day_to
      where d.dataset = 'weather'
      group by d.location_id, d.local_date
      on conflict (location_id, local_date) do update set
        hours = excluded.hours, ${rollupUpdates}, precip_total_mm = excluded.precip_total_mm;
      get diagnostics n = row_count;
      refreshed := refreshed + n;
      return refreshed;
    end
    $fn$;
  `,
    )
    .execute(db);
}
