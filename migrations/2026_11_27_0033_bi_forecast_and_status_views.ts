import { sql, type Kysely } from 'kysely';

/** Weather values as `analytics.weather_hourly` names them: column → expression over `s`. */
const WEATHER_VALUES: readonly [string, string, string][] = [
  ['temperature_c', 's.temperature_c', 'air temperature, °C'],
  ['apparent_temperature_c', 's.apparent_temperature_c', '"feels like" temperature, °C'],
  ['dew_point_c', 's.dew_point_c', 'dew point, °C'],
  ['humidity_pct', 's.humidity_fraction * 100', 'relative humidity, % (0–100)'],
  ['pressure_hpa', 's.pressure_hpa', 'air pressure, hPa'],
  ['wind_speed_ms', 's.wind_speed_ms', 'wind speed, m/s'],
  ['wind_gust_ms', 's.wind_gust_ms', 'wind gust, m/s'],
  ['wind_bearing_deg', 's.wind_bearing_deg', 'wind bearing, degrees 0–360, as sent'],
  ['cloud_cover_pct', 's.cloud_cover_fraction * 100', 'cloud cover, % (0–100)'],
  ['visibility_km', 's.visibility_km', 'visibility, km'],
  ['uv_index', 's.uv_index', 'UV index'],
  ['ozone_du', 's.ozone_du', 'total column ozone, Dobson units (not ground-level ozone)'],
  ['precip_intensity_mm_h', 's.precip_intensity_mm_h', 'precipitation intensity, mm/h'],
  [
    'precip_probability_pct',
    's.precip_probability_fraction * 100',
    'precipitation probability, % (0–100)',
  ],
  ['precip_type', 's.precip_type', 'precipitation type as sent (rain, snow, …)'],
  ['summary', 's.summary', "summary as sent, in the service's language (ENVDATA_LANGUAGE)"],
  [
    'icon',
    's.icon::text',
    'cloudy, partly-cloudy, clear, snow, rain or fog; null if the sent icon maps to none',
  ],
];

const POLLEN_VALUES: readonly [string, string, string][] = [
  ['pollen_type', 's.pollen_type::text', 'tree, grass or weed'],
  ['count', 's.count', 'grains per m³, ≥ 0, exactly as sent (not the sum of the species)'],
  [
    'risk_level',
    's.risk_level::text',
    "the service's risk for this type: Low, Moderate, High, Very High",
  ],
];

const SPECIES_VALUES: readonly [string, string, string][] = [
  ['category', 'sp.category::text', 'tree, grass, weed, or other for the bare Others count'],
  ['species', 'sp.name', 'species name as sent, spaces and slashes included (Poplar / Cottonwood)'],
  ['count', 's.count', 'grains per m³, ≥ 0'],
  [
    'risk_level',
    's.risk_level::text',
    'per-species risk when envdata asks for it (ENVDATA_SPECIES_RISK) and the service sends it: Low, Moderate, High, Very High; else null',
  ],
];

const LOCATION_ID = 'key of the location in every analytics view (analytics.locations)';
const LOCATION_NAME = 'name of the location, as in analytics.locations';
const PRODUCT =
  'the forecast: forecast_48h (pollen, hourly), forecast_120h (pollen, 3-hourly), forecast_72h (weather, hourly)';
const FETCHED_AT = 'when envdata fetched it (the instant of the sync), UTC';

/** The forecast views: each location's newest forecast of each product, one row per hour (and type or species). */
const FORECASTS = [
  {
    view: 'analytics.pollen_forecast',
    table: 'envdata.pollen_snapshot',
    join: '',
    values: POLLEN_VALUES,
    grain: 'location, product, forecast hour and pollen type',
  },
  {
    view: 'analytics.pollen_species_forecast',
    table: 'envdata.pollen_species_snapshot',
    join: 'join envdata.pollen_species sp on sp.species_id = s.species_id',
    values: SPECIES_VALUES,
    grain: 'location, product, forecast hour and species',
  },
  {
    view: 'analytics.weather_forecast',
    table: 'envdata.weather_snapshot',
    join: '',
    values: WEATHER_VALUES,
    grain: 'location, product and forecast hour',
  },
] as const;

/** The latest-reading views: each location's newest reading. */
const LATEST = [
  {
    view: 'analytics.pollen_latest',
    table: 'envdata.pollen_snapshot',
    values: POLLEN_VALUES,
    grain: 'location and pollen type',
  },
  {
    view: 'analytics.weather_latest',
    table: 'envdata.weather_snapshot',
    values: WEATHER_VALUES,
    grain: 'location',
  },
] as const;

const HOUR_STATUSES =
  'landed (its rows are in the facts), quarantined (its records were refused; reasons in envdata.quarantine), missing_upstream (the service never sent it, even when asked again), not_covered (the service answered 404), no_data (the latest answer was "Data not available!"), not_fetched (nothing asked yet, or nothing recorded)';

/** Columns of the hour-status views and of `analytics.hour_status`, with their comments. */
const HOUR_STATUS_COLUMNS: readonly [string, string][] = [
  ['location_id', LOCATION_ID],
  ['location_name', LOCATION_NAME],
  ['observed_at', 'start of the hour, UTC: joins the hourly views on (location_id, observed_at)'],
  [
    'observed_at_local',
    "start of the hour as a wall-clock time in the location's time zone (analytics.locations.timezone)",
  ],
  ['status', `what the ledger knows of the hour, one of: ${HOUR_STATUSES}`],
];

/** `text` as a SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function comments(view: string, columns: readonly [string, string][]): string {
  return columns
    .map(([column, text]) => `comment on column ${view}.${column} is ${literal(text)};`)
    .join('\n');
}

function valueList(values: readonly [string, string, string][]): string {
  return values.map(([name, expr]) => `${expr} as ${name}`).join(', ');
}

function valueComments(values: readonly [string, string, string][]): [string, string][] {
  return values.map(([name, , text]) => [name, text]);
}

/**
 * BI views of what the nightly sync stores beside the history, and of the ledger hour by hour:
 *
 * - `analytics.pollen_forecast`, `pollen_species_forecast`, `weather_forecast`: each location's
 *   newest forecast of each product (its latest `fetched_at`), with the hour it is for in UTC and
 *   local time and the lead in whole hours;
 * - `analytics.pollen_latest`, `weather_latest`: each location's newest latest reading. Every
 *   stored reading carries the service's own stamp (a record without one is refused by the
 *   parser and never stored), so there is no "stamped at fetch" flag to expose.
 * - `analytics.hour_status(dataset, location, from_at, to_at)`: one row per hour of the dataset's
 *   history (its first hour up to the last complete hour) with what the ledger knows of it,
 *   from `analytics.coverage`; and `analytics.pollen_hour_status`, `weather_hour_status` over it
 *   for every location. Nothing is stored per hour: the hours are generated from the ranges.
 *   The function generates only the hours asked for; a view generates a location's whole
 *   history before a `where` on `observed_at` filters it (`where location_id = …` is pushed
 *   down, a time range is not).
 *
 * A location's newest snapshot of a product is read as `order by fetched_at desc fetch first 1
 * rows with ties`: a backward scan of the snapshot table's primary key `(location_id, product,
 * fetched_at, …)` that stops after the newest fetch's rows, so no other index is needed. (A join
 * on `max(fetched_at)` let the planner hash the whole table: every location's current 120-hour
 * pollen forecast, 200 locations with 30 nightly forecasts each, took 168 ms that way, 15 ms so.)
 *
 * The history starts (pollen 2016, weather 1990) are the dataset definitions' `historyStart`
 * (`src/datasets/`), copied: migrations are frozen in time; a test holds them equal.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements: string[] = [];
  for (const f of FORECASTS) {
    statements.push(`
    create view ${f.view} as
    select l.location_id, l.name as location_name, p.product::text as product, s.fetched_at,
      s.valid_at, s.valid_at at time zone l.timezone as valid_at_local,
      floor(extract(epoch from s.valid_at - s.fetched_at) / 3600)::integer as lead_hours,
      ${valueList(f.values)}
    from envdata.location l
    cross join unnest(enum_range(null::envdata.snapshot_product)) as p(product)
    cross join lateral (
      select n.* from ${f.table} n
      where n.location_id = l.location_id and n.product = p.product
      order by n.fetched_at desc fetch first 1 rows with ties
    ) s
    ${f.join}
    where p.product <> 'latest';
    grant select on ${f.view} to envdata_bi;
    comment on view ${f.view} is ${literal(`The newest forecast of each product for each location (the one with the latest fetched_at), one row per ${f.grain}.`)};
    ${comments(f.view, [
      ['location_id', LOCATION_ID],
      ['location_name', LOCATION_NAME],
      ['product', PRODUCT],
      ['fetched_at', `${FETCHED_AT}: the same for every row of one forecast`],
      ['valid_at', 'start of the hour forecast, UTC'],
      [
        'valid_at_local',
        "start of the hour forecast as a wall-clock time in the location's time zone (analytics.locations.timezone)",
      ],
      [
        'lead_hours',
        'whole hours from fetched_at to valid_at, rounded down: fetched at 02:20, the hour 03:00 has lead 0, 05:00 lead 2, and 02:00 (begun before the fetch) lead -1',
      ],
      ...valueComments(f.values),
    ])}`);
  }
  for (const r of LATEST) {
    statements.push(`
    create view ${r.view} as
    select l.location_id, l.name as location_name, s.fetched_at, s.valid_at as observed_at,
      s.valid_at at time zone l.timezone as observed_at_local,
      ${valueList(r.values)}
    from envdata.location l
    cross join lateral (
      select n.* from ${r.table} n
      where n.location_id = l.location_id and n.product = 'latest'
      order by n.fetched_at desc, n.valid_at desc fetch first 1 rows with ties
    ) s;
    grant select on ${r.view} to envdata_bi;
    comment on view ${r.view} is ${literal(`The newest latest reading of each location (of its newest fetch, the newest hour), one row per ${r.grain}.`)};
    ${comments(r.view, [
      ['location_id', LOCATION_ID],
      ['location_name', LOCATION_NAME],
      ['fetched_at', FETCHED_AT],
      [
        'observed_at',
        "start of the hour of the reading, UTC: the service's own stamp rounded down to the hour (a reading sent without a stamp is refused, never stored)",
      ],
      [
        'observed_at_local',
        "start of the hour of the reading as a wall-clock time in the location's time zone (analytics.locations.timezone)",
      ],
      ...valueComments(r.values),
    ])}`);
  }

  statements.push(`
    create function analytics.hour_status(dataset text, location integer,
      from_at timestamptz default '-infinity', to_at timestamptz default 'infinity')
    returns table (location_id integer, location_name text, observed_at timestamptz,
      observed_at_local timestamp, status text)
    language sql stable parallel safe as $fn$
      select l.location_id, l.name, h.observed_at, h.observed_at at time zone l.timezone, s.status
      from analytics.locations l
      -- The hours asked for that the dataset has: from its history start (each dataset
      -- definition's historyStart) to the last complete hour, an hour counted when it starts
      -- in [from_at, to_at).
      cross join lateral (
        select case hour_status.dataset
            when 'pollen' then timestamptz '2016-01-01 00:00:00+00'
            when 'weather' then timestamptz '1990-01-01 00:00:00+00' end as history_start,
          date_trunc('hour', hour_status.from_at + interval '1 hour' - interval '1 microsecond')
            as from_hour,
          least(date_trunc('hour', now()),
            date_trunc('hour', hour_status.to_at + interval '1 hour' - interval '1 microsecond'))
            as to_hour
      ) b
      cross join lateral (
        select case when b.history_start is null
            or greatest(b.history_start, b.from_hour) >= b.to_hour then '{}'::tstzmultirange
          else tstzmultirange(tstzrange(greatest(b.history_start, b.from_hour), b.to_hour)) end
          as hours
      ) asked
      left join analytics.coverage c
        on c.location_id = l.location_id and c.dataset = hour_status.dataset
      -- One status per hour: the ranges of analytics.coverage (holes there already exclude
      -- landed hours) made disjoint in this order.
      cross join lateral (
        select coalesce(c.covered_ranges, '{}') as landed,
          coalesce(c.quarantined_ranges, '{}') as quarantined,
          coalesce(c.missing_upstream_ranges, '{}') - coalesce(c.quarantined_ranges, '{}')
            as missing_upstream,
          coalesce(c.not_covered_ranges, '{}') - coalesce(c.quarantined_ranges, '{}')
            - coalesce(c.missing_upstream_ranges, '{}') as not_covered,
          coalesce(c.no_data_ranges, '{}') - coalesce(c.quarantined_ranges, '{}')
            - coalesce(c.missing_upstream_ranges, '{}') - coalesce(c.not_covered_ranges, '{}')
            as no_data
      ) k
      cross join lateral (values
        ('landed', k.landed),
        ('quarantined', k.quarantined),
        ('missing_upstream', k.missing_upstream),
        ('not_covered', k.not_covered),
        ('no_data', k.no_data),
        ('not_fetched', asked.hours - k.landed - k.quarantined - k.missing_upstream
          - k.not_covered - k.no_data)
      ) as s(status, ranges)
      cross join lateral unnest(s.ranges * asked.hours) as r
      cross join lateral generate_series(lower(r), upper(r) - interval '1 hour', interval '1 hour')
        as h(observed_at)
      where l.location_id = hour_status.location
    $fn$;
    revoke all on function analytics.hour_status(text, integer, timestamptz, timestamptz)
      from public;
    grant execute on function analytics.hour_status(text, integer, timestamptz, timestamptz)
      to envdata_bi;
    comment on function analytics.hour_status(text, integer, timestamptz, timestamptz) is
      ${literal(`One row per hour of a dataset's history (pollen or weather; from its first hour up to the last complete hour) at one location, the hours starting in [from_at, to_at) only, with what the ledger knows of it: ${HOUR_STATUSES}. Generates only the hours asked for.`)};`);
  for (const dataset of ['pollen', 'weather']) {
    const view = `analytics.${dataset}_hour_status`;
    statements.push(`
    create view ${view} as
    select s.location_id, s.location_name, s.observed_at, s.observed_at_local, s.status
    from analytics.locations l
    cross join lateral analytics.hour_status('${dataset}', l.location_id) s;
    grant select on ${view} to envdata_bi;
    comment on view ${view} is ${literal(`One row per location and hour of the ${dataset} history (from its first hour up to the last complete hour) with what the ledger knows of it. Generated, not stored: filter on location_id; for a span of time analytics.hour_status('${dataset}', location_id, from_at, to_at) generates only that span.`)};
    ${comments(view, HOUR_STATUS_COLUMNS)}`);
  }
  await sql.raw(statements.join('\n')).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop view analytics.weather_hour_status, analytics.pollen_hour_status;
    drop function analytics.hour_status(text, integer, timestamptz, timestamptz);
    drop view analytics.weather_latest, analytics.pollen_latest, analytics.weather_forecast,
      analytics.pollen_species_forecast, analytics.pollen_forecast;
  `.execute(db);
}
