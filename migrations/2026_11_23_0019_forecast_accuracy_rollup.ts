import { sql, type Kysely } from 'kysely';

/**
 * Forecast accuracy per local day, kept like the daily rollups: `envdata.forecast_accuracy_rollup`
 * and the view `analytics.forecast_accuracy_daily` over it.
 *
 * `analytics.forecast_accuracy` pairs each forecast hour with its observation at query time. Over
 * many locations that join reads every forecast of the period and probes the hourly facts once
 * per forecast hour and measure: a month of forecasts for 200 locations took 8.7 s in
 * `bench:warehouse`, where a dashboard needs well under a second. The rollup holds, per location,
 * local day of the forecast hour, product, measure and lead day, the sums a dashboard re-adds
 * (pairs, errors, absolute and squared errors, risk-level hits), so any grouping over locations
 * and days reads a few rows per location-day.
 *
 * It is refreshed where the daily rollups are, from the same dirty entries: the function
 * `envdata.refresh_daily_rollups()` of 0009 is kept as `envdata.refresh_fact_rollups()`, and the
 * new `refresh_daily_rollups()` calls it, then recomputes the accuracy of the same spans of local
 * days from the snapshots and the hourly facts. Landings mark their hours dirty (0004); stored
 * forecasts mark the hours they are about (the app, from this migration on), so a pair is counted
 * whichever of its two halves arrives last. Sums add their terms in ascending order, so they are
 * the same to the last digit whatever order the rows were stored in (as 0009 does).
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.forecast_accuracy_rollup (
      location_id integer not null references envdata.location on delete cascade,
      local_date date not null,
      dataset envdata.dataset not null,
      product envdata.snapshot_product not null,
      measure text not null,
      lead_day integer not null,
      pairs integer not null,
      compared integer not null,
      error_sum double precision,
      abs_error_sum double precision,
      squared_error_sum double precision,
      risk_compared integer not null,
      risk_hits integer not null,
      primary key (location_id, local_date, product, measure, lead_day)
    );
    -- A dashboard over every location reads a measure or two for a span of days: the covering
    -- index answers it from its own pages (an index-only scan), where reading the matching rows
    -- in the table would touch nearly every page of the span (each location-day's rows hold
    -- every measure side by side). bench:warehouse, a month of 200 locations: 102 ms → 57 ms.
    -- The second index serves every measure of a span of days.
    create index forecast_accuracy_rollup_measure
      on envdata.forecast_accuracy_rollup (measure, local_date)
      include (location_id, dataset, product, lead_day, pairs, compared, error_sum, abs_error_sum,
        squared_error_sum, risk_compared, risk_hits);
    create index forecast_accuracy_rollup_date
      on envdata.forecast_accuracy_rollup (local_date);

    alter function envdata.refresh_daily_rollups() rename to refresh_fact_rollups;

    -- The daily rollups of the facts (0009's function, renamed), then the accuracy of the
    -- forecasts for the same spans of local days (pg_temp.rollup_spans, which it leaves).
    create function envdata.refresh_daily_rollups() returns integer language plpgsql as $fn$
    declare
      refreshed integer;
      n integer;
    begin
      refreshed := envdata.refresh_fact_rollups();

      create temporary table if not exists pg_temp.accuracy_rows
        (like envdata.forecast_accuracy_rollup) on commit drop;
      truncate pg_temp.accuracy_rows;

      insert into pg_temp.accuracy_rows
      select f.location_id, (f.valid_at at time zone s.timezone)::date, 'pollen'::envdata.dataset, f.product,
        f.pollen_type::text, ceil(extract(epoch from f.valid_at - f.fetched_at) / 86400)::int,
        count(*), count(f.count - o.count),
        sum((f.count - o.count)::double precision order by f.count - o.count),
        sum(abs(f.count - o.count)::double precision order by abs(f.count - o.count)),
        sum(((f.count - o.count)::double precision) ^ 2 order by abs(f.count - o.count)),
        count(f.risk_level::text = o.risk_level::text),
        count(*) filter (where f.risk_level::text = o.risk_level::text)
      from pg_temp.rollup_spans s
      join envdata.pollen_snapshot f
        on f.location_id = s.location_id and f.valid_at >= s.span_from and f.valid_at < s.span_to
      join envdata.pollen_hourly o
        on o.location_id = f.location_id and o.observed_at = f.valid_at
        and o.pollen_type = f.pollen_type
        and o.observed_at >= s.span_from and o.observed_at < s.span_to
      where s.dataset = 'pollen' and f.product <> 'latest'
      group by 1, 2, 3, 4, 5, 6;

      insert into pg_temp.accuracy_rows
      select f.location_id, (f.valid_at at time zone s.timezone)::date, 'weather'::envdata.dataset, f.product,
        m.measure, ceil(extract(epoch from f.valid_at - f.fetched_at) / 86400)::int,
        count(*), count(m.forecast_value - m.observed_value),
        sum(m.forecast_value - m.observed_value order by m.forecast_value - m.observed_value),
        sum(abs(m.forecast_value - m.observed_value)
          order by abs(m.forecast_value - m.observed_value)),
        sum((m.forecast_value - m.observed_value) ^ 2
          order by abs(m.forecast_value - m.observed_value)),
        0, 0
      from pg_temp.rollup_spans s
      join envdata.weather_snapshot f
        on f.location_id = s.location_id and f.valid_at >= s.span_from and f.valid_at < s.span_to
      join envdata.weather_hourly o
        on o.location_id = f.location_id and o.observed_at = f.valid_at
        and o.observed_at >= s.span_from and o.observed_at < s.span_to
      cross join lateral (values
        ('temperature_c', f.temperature_c::double precision, o.temperature_c::double precision),
        ('apparent_temperature_c', f.apparent_temperature_c, o.apparent_temperature_c),
        ('humidity_pct', f.humidity_fraction * 100, o.humidity_fraction * 100),
        ('pressure_hpa', f.pressure_hpa, o.pressure_hpa),
        ('wind_speed_ms', f.wind_speed_ms, o.wind_speed_ms),
        ('cloud_cover_pct', f.cloud_cover_fraction * 100, o.cloud_cover_fraction * 100),
        ('precip_intensity_mm_h', f.precip_intensity_mm_h, o.precip_intensity_mm_h),
        ('precip_probability_pct', f.precip_probability_fraction * 100,
          o.precip_probability_fraction * 100)
      ) as m(measure, forecast_value, observed_value)
      where s.dataset = 'weather' and f.product <> 'latest'
      group by 1, 2, 3, 4, 5, 6;

      insert into envdata.forecast_accuracy_rollup as r
      select * from pg_temp.accuracy_rows
      on conflict (location_id, local_date, product, measure, lead_day) do update set
        dataset = excluded.dataset, pairs = excluded.pairs, compared = excluded.compared,
        error_sum = excluded.error_sum, abs_error_sum = excluded.abs_error_sum,
        squared_error_sum = excluded.squared_error_sum,
        risk_compared = excluded.risk_compared, risk_hits = excluded.risk_hits;
      get diagnostics n = row_count;
      refreshed := refreshed + n;

      -- Days of the spans that no longer have a pair of some kind lose its row.
      delete from envdata.forecast_accuracy_rollup r
      using pg_temp.rollup_spans s
      where r.location_id = s.location_id and r.dataset = s.dataset
        and r.local_date >= (s.span_from at time zone s.timezone)::date
        and r.local_date < (s.span_to at time zone s.timezone)::date
        and not exists (
          select 1 from pg_temp.accuracy_rows a
          where a.location_id = r.location_id and a.local_date = r.local_date
            and a.product = r.product and a.measure = r.measure and a.lead_day = r.lead_day);
      return refreshed;
    end
    $fn$;

    create view analytics.forecast_accuracy_daily as
    select r.location_id, l.name as location_name, r.local_date, r.dataset::text as dataset,
      r.product::text as product, r.measure, r.lead_day, r.pairs, r.compared,
      r.error_sum, r.abs_error_sum, r.squared_error_sum,
      r.abs_error_sum / nullif(r.compared, 0) as mae,
      sqrt(r.squared_error_sum / nullif(r.compared, 0)) as rmse,
      r.error_sum / nullif(r.compared, 0) as bias,
      case when r.dataset = 'pollen' then r.risk_compared end as risk_compared,
      case when r.dataset = 'pollen' then r.risk_hits end as risk_hits
    from envdata.forecast_accuracy_rollup r join envdata.location l using (location_id);

    grant select on analytics.forecast_accuracy_daily to envdata_bi;

    -- What is already stored: every location's span of forecasts, marked for the next refresh.
    insert into envdata.rollup_dirty (location_id, dataset, from_at, to_at)
    select location_id, 'pollen'::envdata.dataset, min(valid_at), max(valid_at) + interval '1 hour'
    from envdata.pollen_snapshot where product <> 'latest' group by location_id
    union all
    select location_id, 'weather'::envdata.dataset, min(valid_at), max(valid_at) + interval '1 hour'
    from envdata.weather_snapshot where product <> 'latest' group by location_id;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop view analytics.forecast_accuracy_daily;
    drop function envdata.refresh_daily_rollups();
    alter function envdata.refresh_fact_rollups() rename to refresh_daily_rollups;
    drop table envdata.forecast_accuracy_rollup;
  `.execute(db);
}
