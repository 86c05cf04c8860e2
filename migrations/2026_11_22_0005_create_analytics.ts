import { sql, type Kysely } from 'kysely';

const WEATHER_MEASURES = [
  'temperature_c',
  'apparent_temperature_c',
  'dew_point_c',
  'humidity_pct',
  'pressure_hpa',
  'wind_speed_ms',
  'wind_gust_ms',
  'cloud_cover_pct',
  'visibility_km',
  'uv_index',
  'ozone_du',
  'precip_intensity_mm_h',
  'precip_probability_pct',
];

/**
 * The BI contract: stable views in schema `analytics` (docs/warehouse.md), and the read-only
 * role `envdata_bi` that may read them and nothing else.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const dailyWeatherColumns = WEATHER_MEASURES.map(
    (m) => `r.${m}_min, r.${m}_max, r.${m}_mean`,
  ).join(', ');
  await sql
    .raw(
      `
    create view analytics.locations as
    select location_id, name, lat, lng, country_code::text as country_code, timezone,
      pollen_region::text as pollen_region
    from envdata.location;

    create view analytics.pollen_hourly as
    select p.location_id, l.name as location_name, p.observed_at, p.pollen_type::text as pollen_type,
      p.count, p.risk_level::text as risk_level
    from envdata.pollen_hourly p join envdata.location l using (location_id);

    create view analytics.pollen_species_hourly as
    select p.location_id, l.name as location_name, p.observed_at, s.category::text as category,
      s.name as species, p.count, p.risk_level::text as risk_level
    from envdata.pollen_species_hourly p
    join envdata.location l using (location_id)
    join envdata.pollen_species s using (species_id);

    create view analytics.weather_hourly as
    select w.location_id, l.name as location_name, w.observed_at,
      w.temperature_c, w.apparent_temperature_c, w.dew_point_c,
      w.humidity_fraction * 100 as humidity_pct, w.pressure_hpa, w.wind_speed_ms, w.wind_gust_ms,
      w.wind_bearing_deg, w.cloud_cover_fraction * 100 as cloud_cover_pct, w.visibility_km,
      w.uv_index, w.ozone_du, w.precip_intensity_mm_h,
      w.precip_probability_fraction * 100 as precip_probability_pct, w.precip_type, w.summary,
      w.icon::text as icon
    from envdata.weather_hourly w join envdata.location l using (location_id);

    create view analytics.pollen_daily as
    select r.location_id, l.name as location_name, r.local_date, r.pollen_type::text as pollen_type,
      r.hours, r.count_min, r.count_max, r.count_mean, r.max_risk_level::text as max_risk_level
    from envdata.pollen_daily_rollup r join envdata.location l using (location_id);

    create view analytics.weather_daily as
    select r.location_id, l.name as location_name, r.local_date, r.hours, ${dailyWeatherColumns},
      r.precip_total_mm
    from envdata.weather_daily_rollup r join envdata.location l using (location_id);

    create view analytics.forecast_accuracy as
    select f.location_id, l.name as location_name, 'pollen'::text as dataset, f.product::text as product,
      f.fetched_at, f.valid_at as forecast_for,
      extract(epoch from f.valid_at - f.fetched_at) / 3600 as lead_hours,
      f.pollen_type::text as measure,
      f.count::double precision as forecast_value, o.count::double precision as observed_value,
      f.risk_level::text as forecast_risk_level, o.risk_level::text as observed_risk_level
    from envdata.pollen_snapshot f
    join envdata.location l using (location_id)
    join envdata.pollen_hourly o
      on o.location_id = f.location_id and o.observed_at = f.valid_at and o.pollen_type = f.pollen_type
    where f.product <> 'latest'
    union all
    select f.location_id, l.name, 'weather', f.product::text, f.fetched_at, f.valid_at,
      extract(epoch from f.valid_at - f.fetched_at) / 3600, m.measure, m.forecast_value,
      m.observed_value, null, null
    from envdata.weather_snapshot f
    join envdata.location l using (location_id)
    join envdata.weather_hourly o on o.location_id = f.location_id and o.observed_at = f.valid_at
    cross join lateral (values
      ('temperature_c', f.temperature_c::double precision, o.temperature_c::double precision),
      ('apparent_temperature_c', f.apparent_temperature_c, o.apparent_temperature_c),
      ('humidity_pct', f.humidity_fraction * 100, o.humidity_fraction * 100),
      ('pressure_hpa', f.pressure_hpa, o.pressure_hpa),
      ('wind_speed_ms', f.wind_speed_ms, o.wind_speed_ms),
      ('cloud_cover_pct', f.cloud_cover_fraction * 100, o.cloud_cover_fraction * 100),
      ('precip_intensity_mm_h', f.precip_intensity_mm_h, o.precip_intensity_mm_h),
      ('precip_probability_pct', f.precip_probability_fraction * 100, o.precip_probability_fraction * 100)
    ) as m(measure, forecast_value, observed_value)
    where f.product <> 'latest';

    create view analytics.coverage as
    with covered as (
      select location_id, dataset, range_agg(tstzrange(window_from, window_to)) as ranges
      from envdata.chunk where status = 'done'
      group by location_id, dataset
    )
    select c.location_id, l.name as location_name, c.dataset::text as dataset,
      lower(c.ranges) as first_hour,
      upper(c.ranges) - interval '1 hour' as last_ingested_hour,
      c.ranges as covered_ranges,
      tstzmultirange(tstzrange(lower(c.ranges), upper(c.ranges))) - c.ranges as gaps
    from covered c join envdata.location l using (location_id);

    do $do$
    begin
      if not exists (select 1 from pg_roles where rolname = 'envdata_bi') then
        create role envdata_bi nologin;
      end if;
    exception when duplicate_object or unique_violation then
      null; -- another database of this cluster created it at the same moment
    end
    $do$;
    grant usage on schema analytics to envdata_bi;
    grant select on all tables in schema analytics to envdata_bi;
    revoke all on schema envdata from public;
  `,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    revoke all on all tables in schema analytics from envdata_bi;
    revoke all on schema analytics from envdata_bi;
    drop view if exists analytics.coverage, analytics.forecast_accuracy, analytics.weather_daily,
      analytics.pollen_daily, analytics.weather_hourly, analytics.pollen_species_hourly,
      analytics.pollen_hourly, analytics.locations;
  `.execute(db);
}
