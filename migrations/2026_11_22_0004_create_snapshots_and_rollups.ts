import { sql, type Kysely } from 'kysely';

/** Weather measures of the daily rollup: column in the view → expression over weather_hourly. */
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

const WEATHER_COLUMNS = `
  temperature_c real, apparent_temperature_c real, dew_point_c real,
  humidity_fraction real, pressure_hpa real, wind_speed_ms real, wind_gust_ms real,
  wind_bearing_deg real, cloud_cover_fraction real, visibility_km real, uv_index real,
  ozone_du real, precip_intensity_mm_h real, precip_probability_fraction real,
  precip_type text, summary text, icon envdata.weather_icon, icon_raw text`;

/**
 * Latest readings and forecasts as fetched (snapshots), and the per-local-day rollups behind
 * analytics.pollen_daily / weather_daily with the function that refreshes the dirty days.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const rollupColumns = WEATHER_MEASURES.map(
    ([name]) => `${name}_min real, ${name}_max real, ${name}_mean real`,
  ).join(',\n      ');
  const rollupNames = WEATHER_MEASURES.map(
    ([name]) => `${name}_min, ${name}_max, ${name}_mean`,
  ).join(', ');
  const rollupExprs = WEATHER_MEASURES.map(
    ([, expr]) => `min(${expr}), max(${expr}), avg(${expr})`,
  ).join(',\n          ');
  const rollupUpdates = WEATHER_MEASURES.flatMap(([name]) =>
    ['min', 'max', 'mean'].map((s) => `${name}_${s} = excluded.${name}_${s}`),
  ).join(', ');

  await sql
    .raw(
      `
    create type envdata.snapshot_product as enum ('latest', 'forecast_48h', 'forecast_120h', 'forecast_72h');

    create table envdata.pollen_snapshot (
      location_id integer not null references envdata.location on delete cascade,
      product envdata.snapshot_product not null,
      fetched_at timestamptz not null,
      valid_at timestamptz not null,
      pollen_type envdata.pollen_type not null,
      count integer check (count >= 0),
      risk_level envdata.risk_level,
      primary key (location_id, product, fetched_at, valid_at, pollen_type)
    );
    create index pollen_snapshot_valid on envdata.pollen_snapshot (location_id, valid_at);

    create table envdata.pollen_species_snapshot (
      location_id integer not null references envdata.location on delete cascade,
      product envdata.snapshot_product not null,
      fetched_at timestamptz not null,
      valid_at timestamptz not null,
      species_id smallint not null references envdata.pollen_species,
      count integer not null check (count >= 0),
      risk_level envdata.risk_level,
      primary key (location_id, product, fetched_at, valid_at, species_id)
    );

    create table envdata.weather_snapshot (
      location_id integer not null references envdata.location on delete cascade,
      product envdata.snapshot_product not null,
      fetched_at timestamptz not null,
      valid_at timestamptz not null,
      ${WEATHER_COLUMNS},
      primary key (location_id, product, fetched_at, valid_at)
    );
    create index weather_snapshot_valid on envdata.weather_snapshot (location_id, valid_at);

    create table envdata.pollen_daily_rollup (
      location_id integer not null references envdata.location on delete cascade,
      local_date date not null,
      pollen_type envdata.pollen_type not null,
      hours integer not null,
      count_min integer,
      count_max integer,
      count_mean real,
      max_risk_level envdata.risk_level,
      primary key (location_id, local_date, pollen_type)
    );

    create table envdata.weather_daily_rollup (
      location_id integer not null references envdata.location on delete cascade,
      local_date date not null,
      hours integer not null,
      ${rollupColumns},
      precip_total_mm real,
      primary key (location_id, local_date)
    );

    -- Recomputes the local days touched by envdata.rollup_dirty and consumes those entries.
    -- A local day is [day 00:00, next day 00:00) in the location's time zone, so days across a
    -- daylight-saving change have 23 or 25 hours.
    create function envdata.refresh_daily_rollups() returns integer language plpgsql as $fn$
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
          ${rollupExprs},
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

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop function if exists envdata.refresh_daily_rollups();
    drop table if exists envdata.weather_daily_rollup, envdata.pollen_daily_rollup,
      envdata.weather_snapshot, envdata.pollen_species_snapshot, envdata.pollen_snapshot;
    drop type if exists envdata.snapshot_product;
  `.execute(db);
}
