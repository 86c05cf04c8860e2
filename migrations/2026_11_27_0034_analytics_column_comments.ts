import { sql, type Kysely } from 'kysely';

/** One column of an `analytics` view as BI users read it: its comment, and what the doc shows. */
export interface AnalyticsColumn {
  readonly name: string;
  /** The type as docs/warehouse.md writes it: `timestamptz`, `double precision`, … */
  readonly type: string;
  /** Whether it can be null (Postgres reports every view column as nullable). */
  readonly nullable: boolean;
  /** Its `comment on column`: meaning, unit, allowed values, time zone. */
  readonly meaning: string;
}

/** An `analytics` view and its columns, in column order. */
export interface AnalyticsView {
  readonly view: string;
  readonly columns: readonly AnalyticsColumn[];
}

const column = (
  name: string,
  type: string,
  nullable: boolean,
  meaning: string,
): AnalyticsColumn => ({ name, type, nullable, meaning });

const LOCATION = [
  column(
    'location_id',
    'integer',
    false,
    'key of the location in every analytics view (analytics.locations)',
  ),
  column('location_name', 'text', false, 'name of the location, as in analytics.locations'),
];
const LOCAL_DAY =
  "the location's local day: 00:00 to 00:00 in its time zone (analytics.locations.timezone), 23 or 25 hours long on daylight-saving days";
const DAY_HOURS =
  "hourly rows that fell into the local day: the day is complete when this equals the day's length (24, or 23/25 on daylight-saving days)";
const RISK_LEVELS = 'Low, Moderate, High, Very High (text: order by severity with array_position)';
const PRODUCTS =
  'the forecast: forecast_48h (pollen, hourly), forecast_120h (pollen, 3-hourly), forecast_72h (weather, hourly)';
const FETCHED_AT = 'when envdata fetched it (the instant of the sync), UTC';
const AS_SENT = 'to 2 decimals, as the service sends it';
const SHARE =
  'to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';

/**
 * A weather value column: `sent` numbers are stored as `real` and shown as sent (2 decimals);
 * `share` numbers are stored as a fraction (`source`) and shown as a percentage; `text` as is.
 */
interface WeatherValue {
  readonly name: string;
  readonly source: string;
  readonly kind: 'sent' | 'share' | 'text';
  /** What it is, with its unit: the start of its comment. */
  readonly label: string;
  /** Has `_min`, `_max` and `_mean` columns in `analytics.weather_daily`. */
  readonly daily: boolean;
}

const WEATHER_VALUES: readonly WeatherValue[] = [
  { name: 'temperature_c', kind: 'sent', label: 'air temperature, °C', daily: true },
  {
    name: 'apparent_temperature_c',
    kind: 'sent',
    label: '"feels like" temperature, °C',
    daily: true,
  },
  { name: 'dew_point_c', kind: 'sent', label: 'dew point, °C', daily: true },
  {
    name: 'humidity_pct',
    source: 'humidity_fraction',
    kind: 'share',
    label: 'relative humidity, % (0–100)',
    daily: true,
  },
  { name: 'pressure_hpa', kind: 'sent', label: 'air pressure, hPa', daily: true },
  { name: 'wind_speed_ms', kind: 'sent', label: 'wind speed, m/s', daily: true },
  { name: 'wind_gust_ms', kind: 'sent', label: 'wind gust, m/s', daily: true },
  { name: 'wind_bearing_deg', kind: 'sent', label: 'wind bearing, degrees 0–360', daily: false },
  {
    name: 'cloud_cover_pct',
    source: 'cloud_cover_fraction',
    kind: 'share',
    label: 'cloud cover, % (0–100)',
    daily: true,
  },
  { name: 'visibility_km', kind: 'sent', label: 'visibility, km', daily: true },
  { name: 'uv_index', kind: 'sent', label: 'UV index, ≥ 0', daily: true },
  {
    name: 'ozone_du',
    kind: 'sent',
    label: 'total column ozone, Dobson units (not ground-level ozone)',
    daily: true,
  },
  {
    name: 'precip_intensity_mm_h',
    kind: 'sent',
    label: 'precipitation intensity, mm/h',
    daily: true,
  },
  {
    name: 'precip_probability_pct',
    source: 'precip_probability_fraction',
    kind: 'share',
    label: 'precipitation probability, % (0–100)',
    daily: true,
  },
  {
    name: 'precip_type',
    kind: 'text',
    label: 'precipitation type as sent (rain, snow, …)',
    daily: false,
  },
  {
    name: 'summary',
    kind: 'text',
    label: "summary as sent (Partly Cloudy), in the service's language (ENVDATA_LANGUAGE)",
    daily: false,
  },
  {
    name: 'icon',
    source: 'icon::text',
    kind: 'text',
    label: 'cloudy, partly-cloudy, clear, snow, rain or fog; null if the sent icon maps to none',
    daily: false,
  },
].map((v) => ({ source: v.name, ...v }) as WeatherValue);

const WEATHER_COLUMNS = WEATHER_VALUES.map((v) =>
  column(
    v.name,
    v.kind === 'text' ? 'text' : 'double precision',
    true,
    v.kind === 'sent'
      ? `${v.label}, ${AS_SENT}`
      : v.kind === 'share'
        ? `${v.label}, ${SHARE}`
        : v.label,
  ),
);

const POLLEN_TYPE = column('pollen_type', 'text', false, 'tree, grass or weed');
const POLLEN_COLUMNS = [
  POLLEN_TYPE,
  column(
    'count',
    'integer',
    true,
    'grains (particles) per m³, ≥ 0, exactly as sent (not the sum of the species)',
  ),
  column('risk_level', 'text', true, `the service's risk for this type: ${RISK_LEVELS}`),
];
const SPECIES_COLUMNS = [
  column(
    'category',
    'text',
    false,
    'tree, grass, weed, or other for the bare Others count (species Others)',
  ),
  column(
    'species',
    'text',
    false,
    'species name as sent, spaces and slashes included (Birch, Poplar / Cottonwood)',
  ),
  column('count', 'integer', false, 'grains (particles) per m³, ≥ 0'),
  column(
    'risk_level',
    'text',
    true,
    `per-species risk when envdata asks for it (ENVDATA_SPECIES_RISK) and the service sends it: ${RISK_LEVELS}; else null`,
  ),
];

const FORECAST_HEAD = [
  ...LOCATION,
  column('product', 'text', false, PRODUCTS),
  column(
    'fetched_at',
    'timestamptz',
    false,
    `${FETCHED_AT}: the same for every row of one forecast`,
  ),
  column('valid_at', 'timestamptz', false, 'start of the hour forecast, UTC'),
  column(
    'valid_at_local',
    'timestamp',
    false,
    "start of the hour forecast as a wall-clock time in the location's time zone (analytics.locations.timezone)",
  ),
  column(
    'lead_hours',
    'integer',
    false,
    'whole hours from fetched_at to valid_at, rounded down: fetched at 02:20, the hour 03:00 has lead 0, 05:00 lead 2, and 02:00 (begun before the fetch) lead -1',
  ),
];
const LATEST_HEAD = [
  ...LOCATION,
  column('fetched_at', 'timestamptz', false, FETCHED_AT),
  column(
    'observed_at',
    'timestamptz',
    false,
    "start of the hour of the reading, UTC: the service's own stamp rounded down to the hour (a reading sent without a stamp is refused, never stored)",
  ),
  column(
    'observed_at_local',
    'timestamp',
    false,
    "start of the hour of the reading as a wall-clock time in the location's time zone (analytics.locations.timezone)",
  ),
];
const HOURLY_HEAD = [
  ...LOCATION,
  column(
    'observed_at',
    'timestamptz',
    false,
    "start of the hour, UTC (the record's instant rounded down to the hour)",
  ),
];
const HOUR_STATUS_COLUMNS = [
  ...LOCATION,
  column(
    'observed_at',
    'timestamptz',
    false,
    'start of the hour, UTC: joins the hourly views on (location_id, observed_at)',
  ),
  column(
    'observed_at_local',
    'timestamp',
    false,
    "start of the hour as a wall-clock time in the location's time zone (analytics.locations.timezone)",
  ),
  column(
    'status',
    'text',
    false,
    'what the ledger knows of the hour, one of: landed (its rows are in the facts), quarantined (its records were refused; reasons in envdata.quarantine), missing_upstream (the service never sent it, even when asked again), not_covered (the service answered 404), no_data (the latest answer was "Data not available!"), not_fetched (nothing asked yet, or nothing recorded)',
  ),
];
const DAILY_WEATHER_COLUMNS = WEATHER_VALUES.filter((v) => v.daily).flatMap((v) => [
  column(
    `${v.name}_min`,
    'double precision',
    true,
    `lowest hour of the local day: ${v.label}, to 2 decimals`,
  ),
  column(
    `${v.name}_max`,
    'double precision',
    true,
    `highest hour of the local day: ${v.label}, to 2 decimals`,
  ),
  column(
    `${v.name}_mean`,
    'double precision',
    true,
    `mean of the local day's hours present: ${v.label}, to 4 decimals`,
  ),
]);
const MEASURES =
  'pollen: tree, grass, weed; weather: temperature_c, apparent_temperature_c, humidity_pct, pressure_hpa, wind_speed_ms, cloud_cover_pct, precip_intensity_mm_h, precip_probability_pct';
const RANGES = 'half-open [from, to) ranges of hours, UTC';

/**
 * The meaning of every column of every `analytics` view, as this migration leaves them: their
 * `comment on column` (what Metabase, Superset and Grafana show as a field's description), and
 * the column tables of docs/warehouse.md (`npm run docs:warehouse`). src/warehouse/
 * analytics-columns.ts reads it from here; a later migration that changes a view exports the
 * table it leaves, and that module reads the newer one.
 */
export const ANALYTICS_COLUMNS: readonly AnalyticsView[] = [
  {
    view: 'analytics.locations',
    columns: [
      column('location_id', 'integer', false, 'key of the location in every analytics view'),
      column(
        'name',
        'text',
        false,
        'unique name, as people read it (case, Unicode form and invisible characters aside); NFC',
      ),
      column(
        'lat',
        'double precision',
        false,
        'latitude, WGS 84 degrees, to 4 decimals (about 11 m)',
      ),
      column('lng', 'double precision', false, 'longitude, WGS 84 degrees, to 4 decimals'),
      column('country_code', 'text', true, 'ISO 3166-1 alpha-2 (DE); null when unknown'),
      column(
        'timezone',
        'text',
        false,
        "IANA time zone (Europe/Berlin): defines the location's local days",
      ),
      column(
        'pollen_region',
        'text',
        false,
        'europe, north_america, australia_qld_nt, australia_nz_rest, south_america_oceania or rest_of_world: decides the species',
      ),
    ],
  },
  { view: 'analytics.pollen_hourly', columns: [...HOURLY_HEAD, ...POLLEN_COLUMNS] },
  { view: 'analytics.pollen_species_hourly', columns: [...HOURLY_HEAD, ...SPECIES_COLUMNS] },
  { view: 'analytics.weather_hourly', columns: [...HOURLY_HEAD, ...WEATHER_COLUMNS] },
  {
    view: 'analytics.pollen_daily',
    columns: [
      ...LOCATION,
      column('local_date', 'date', false, LOCAL_DAY),
      POLLEN_TYPE,
      column('hours', 'integer', false, DAY_HOURS),
      column('count_min', 'integer', true, 'lowest hourly count of the local day, grains per m³'),
      column('count_max', 'integer', true, 'highest hourly count of the local day, grains per m³'),
      column(
        'count_mean',
        'double precision',
        true,
        "mean of the local day's hourly counts present, grains per m³, to 4 decimals",
      ),
      column(
        'max_risk_level',
        'text',
        true,
        `highest hourly risk of the local day, by severity: ${RISK_LEVELS}`,
      ),
    ],
  },
  {
    view: 'analytics.weather_daily',
    columns: [
      ...LOCATION,
      column('local_date', 'date', false, LOCAL_DAY),
      column('hours', 'integer', false, DAY_HOURS),
      ...DAILY_WEATHER_COLUMNS,
      column(
        'precip_total_mm',
        'double precision',
        true,
        "precipitation of the local day, mm: the sum of the hourly intensities (each hour's mm/h over one hour), to 2 decimals",
      ),
    ],
  },
  {
    view: 'analytics.forecast_accuracy',
    columns: [
      ...LOCATION,
      column('dataset', 'text', false, 'pollen or weather'),
      column('product', 'text', false, PRODUCTS),
      column('fetched_at', 'timestamptz', false, `${FETCHED_AT}: when the forecast was fetched`),
      column('forecast_for', 'timestamptz', false, 'start of the hour forecast, UTC'),
      column('lead_hours', 'numeric', false, 'forecast_for − fetched_at, in hours (fractional)'),
      column('measure', 'text', false, MEASURES),
      column(
        'forecast_value',
        'double precision',
        true,
        "the forecast, in the measure's unit (as in the hourly views: counts in grains per m³, percentages 0–100), to 2 decimals",
      ),
      column(
        'observed_value',
        'double precision',
        true,
        'the observation of the same hour, same unit and precision',
      ),
      column('forecast_risk_level', 'text', true, `pollen only: forecast risk, ${RISK_LEVELS}`),
      column('observed_risk_level', 'text', true, `pollen only: observed risk, ${RISK_LEVELS}`),
    ],
  },
  {
    view: 'analytics.forecast_accuracy_daily',
    columns: [
      ...LOCATION,
      column(
        'local_date',
        'date',
        false,
        "the local day of the forecast hour (forecast_for), in the location's time zone (analytics.locations.timezone)",
      ),
      column('dataset', 'text', false, 'pollen or weather'),
      column('product', 'text', false, PRODUCTS),
      column('measure', 'text', false, MEASURES),
      column(
        'lead_day',
        'integer',
        false,
        'ceil(lead_hours / 24): 0 for the hour fetched, 1 for the next 24 hours, …',
      ),
      column(
        'pairs',
        'integer',
        false,
        'forecast hours with an observation (rows of forecast_accuracy)',
      ),
      column('compared', 'integer', false, 'pairs where both values are present'),
      column(
        'error_sum',
        'double precision',
        true,
        "sum of forecast_value − observed_value over the compared pairs, in the measure's unit",
      ),
      column('abs_error_sum', 'double precision', true, 'sum of absolute errors'),
      column('squared_error_sum', 'double precision', true, 'sum of squared errors'),
      column(
        'mae',
        'double precision',
        true,
        'abs_error_sum / compared: mean absolute error of this row (add the sums over rows, then divide)',
      ),
      column('rmse', 'double precision', true, 'root mean squared error of this row'),
      column(
        'bias',
        'double precision',
        true,
        'error_sum / compared: positive when the forecast was too high',
      ),
      column(
        'risk_compared',
        'integer',
        true,
        'pollen: pairs where both risk levels are present; null for weather',
      ),
      column(
        'risk_hits',
        'integer',
        true,
        'pollen: pairs whose forecast risk level was the observed one; null for weather',
      ),
    ],
  },
  {
    view: 'analytics.coverage',
    columns: [
      ...LOCATION,
      column('dataset', 'text', false, 'pollen or weather'),
      column(
        'first_hour',
        'timestamptz',
        true,
        'first hour with rows, UTC (null when no hour has landed)',
      ),
      column(
        'last_ingested_hour',
        'timestamptz',
        true,
        'last hour with rows (the start of that hour), UTC',
      ),
      column(
        'covered_ranges',
        'tstzmultirange',
        false,
        `every hour whose rows are in the facts, as ${RANGES}`,
      ),
      column(
        'gaps',
        'tstzmultirange',
        false,
        'hours between first_hour and the end of the last range without rows; {} when none, or nothing landed',
      ),
      column(
        'missing_upstream_ranges',
        'tstzmultirange',
        false,
        'hours the service never sent in a successful answer, even when asked again (ENVDATA_REFETCH_ATTEMPTS)',
      ),
      column(
        'quarantined_ranges',
        'tstzmultirange',
        false,
        'hours whose records were quarantined (invalid, or sent twice with different values); reasons in envdata.quarantine',
      ),
      column(
        'not_covered_ranges',
        'tstzmultirange',
        false,
        'hours the service answered 404 for (outside its coverage)',
      ),
      column(
        'no_data_ranges',
        'tstzmultirange',
        false,
        'hours whose latest answer was "Data not available!": a clean zero, asked again after ENVDATA_NO_DATA_RECHECK',
      ),
      column(
        'known_empty',
        'boolean',
        false,
        'nothing landed, and what was asked was answered "no data" or "not covered"',
      ),
    ],
  },
  { view: 'analytics.pollen_forecast', columns: [...FORECAST_HEAD, ...POLLEN_COLUMNS] },
  { view: 'analytics.pollen_species_forecast', columns: [...FORECAST_HEAD, ...SPECIES_COLUMNS] },
  { view: 'analytics.weather_forecast', columns: [...FORECAST_HEAD, ...WEATHER_COLUMNS] },
  { view: 'analytics.pollen_latest', columns: [...LATEST_HEAD, ...POLLEN_COLUMNS] },
  { view: 'analytics.weather_latest', columns: [...LATEST_HEAD, ...WEATHER_COLUMNS] },
  { view: 'analytics.pollen_hour_status', columns: HOUR_STATUS_COLUMNS },
  { view: 'analytics.weather_hour_status', columns: HOUR_STATUS_COLUMNS },
];

/**
 * How a view shows a stored `real`: `precise` as the service sent it, a `double precision` that
 * prints as the decimal sent (`73`, not `73.00000190734863`); `stored` as before this migration.
 */
export type Precision = 'precise' | 'stored';

/** `real` → `double precision` rounded to `decimals`: the nearest double to that decimal. */
function rounded(expr: string, decimals: number, times = 1): string {
  const scale = 10 ** decimals;
  return `round(${expr}::double precision * ${scale * times}) / ${scale}`;
}

/** A weather value of `alias` (a snapshot or an hourly row), as `analytics` shows it. */
function weatherValue(alias: string, v: WeatherValue, precision: Precision): string {
  const stored = `${alias}.${v.source}`;
  if (v.kind === 'text') return stored;
  if (v.kind === 'share')
    return precision === 'precise' ? rounded(stored, 2, 100) : `${stored} * 100`;
  return precision === 'precise' ? rounded(stored, 2) : stored;
}

function weatherValues(alias: string, precision: Precision): string {
  return WEATHER_VALUES.map((v) => `${weatherValue(alias, v, precision)} as ${v.name}`).join(', ');
}

/** The weather measures `forecast_accuracy` pairs, in its order, with their stored columns. */
const ACCURACY_MEASURES = [
  'temperature_c',
  'apparent_temperature_c',
  'humidity_pct',
  'pressure_hpa',
  'wind_speed_ms',
  'cloud_cover_pct',
  'precip_intensity_mm_h',
  'precip_probability_pct',
].map((name) => WEATHER_VALUES.find((v) => v.name === name)!);

/** The `(values …)` rows pairing each weather measure of forecast `f` with observation `o`. */
function accuracyMeasures(precision: Precision): string {
  return ACCURACY_MEASURES.map((v, i) => {
    const [f, o] = [weatherValue('f', v, precision), weatherValue('o', v, precision)];
    // The first row types the column: double precision, as it always was.
    const cast = i === 0 && precision === 'stored' ? '::double precision' : '';
    return `('${v.name}', ${f}${cast}, ${o}${cast})`;
  }).join(',\n        ');
}

/** The snapshot views of 0033 whose values are weather values. */
function weatherSnapshotViews(precision: Precision): string {
  return `
    create view analytics.weather_forecast as
    select l.location_id, l.name as location_name, p.product::text as product, s.fetched_at,
      s.valid_at, s.valid_at at time zone l.timezone as valid_at_local,
      floor(extract(epoch from s.valid_at - s.fetched_at) / 3600)::integer as lead_hours,
      ${weatherValues('s', precision)}
    from envdata.location l
    cross join unnest(enum_range(null::envdata.snapshot_product)) as p(product)
    cross join lateral (
      select n.* from envdata.weather_snapshot n
      where n.location_id = l.location_id and n.product = p.product
      order by n.fetched_at desc fetch first 1 rows with ties
    ) s
    where p.product <> 'latest';
    grant select on analytics.weather_forecast to envdata_bi;
    comment on view analytics.weather_forecast is 'The newest forecast of each product for each location (the one with the latest fetched_at), one row per location, product and forecast hour.';

    create view analytics.weather_latest as
    select l.location_id, l.name as location_name, s.fetched_at, s.valid_at as observed_at,
      s.valid_at at time zone l.timezone as observed_at_local,
      ${weatherValues('s', precision)}
    from envdata.location l
    cross join lateral (
      select n.* from envdata.weather_snapshot n
      where n.location_id = l.location_id and n.product = 'latest'
      order by n.fetched_at desc, n.valid_at desc fetch first 1 rows with ties
    ) s;
    grant select on analytics.weather_latest to envdata_bi;
    comment on view analytics.weather_latest is 'The newest latest reading of each location (of its newest fetch, the newest hour), one row per location.';`;
}

/** The views of 0005 over the hourly weather and the daily rollups. */
function factViews(precision: Precision): string {
  const daily = (expr: string, decimals: number) =>
    precision === 'precise' ? rounded(expr, decimals) : expr;
  const dailyWeather = WEATHER_VALUES.filter((v) => v.daily)
    .map(
      (v) =>
        `${daily(`r.${v.name}_min`, 2)} as ${v.name}_min, ${daily(`r.${v.name}_max`, 2)} as ${v.name}_max, ` +
        `${daily(`r.${v.name}_mean`, 4)} as ${v.name}_mean`,
    )
    .join(',\n      ');
  return `
    create view analytics.weather_hourly as
    select w.location_id, l.name as location_name, w.observed_at, ${weatherValues('w', precision)}
    from envdata.weather_hourly w join envdata.location l using (location_id);
    grant select on analytics.weather_hourly to envdata_bi;

    create view analytics.pollen_daily as
    select r.location_id, l.name as location_name, r.local_date, r.pollen_type::text as pollen_type,
      r.hours, r.count_min, r.count_max, ${daily('r.count_mean', 4)} as count_mean,
      r.max_risk_level::text as max_risk_level
    from envdata.pollen_daily_rollup r join envdata.location l using (location_id);
    grant select on analytics.pollen_daily to envdata_bi;

    create view analytics.weather_daily as
    select r.location_id, l.name as location_name, r.local_date, r.hours,
      ${dailyWeather},
      ${daily('r.precip_total_mm', 2)} as precip_total_mm
    from envdata.weather_daily_rollup r join envdata.location l using (location_id);
    grant select on analytics.weather_daily to envdata_bi;`;
}

/** 0005's `analytics.forecast_accuracy`, its weather pairs shown at `precision`. */
function forecastAccuracyView(precision: Precision): string {
  return `
    create or replace view analytics.forecast_accuracy as
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
        ${accuracyMeasures(precision)}
    ) as m(measure, forecast_value, observed_value)
    where f.product <> 'latest';`;
}

/**
 * 0019's `envdata.refresh_daily_rollups()`, its weather pairs read at `precision`: the daily
 * accuracy sums what `analytics.forecast_accuracy` shows.
 */
function refreshDailyRollups(precision: Precision): string {
  return `
    create or replace function envdata.refresh_daily_rollups() returns integer language plpgsql as $fn$
    declare
      refreshed integer;
      n integer;
    begin
      refreshed := envdata.refresh_fact_rollups();
${accuracyRefresh(precision)}      return refreshed;
    end
    $fn$;`;
}

/**
 * The part of `refresh_daily_rollups()` after `refresh_fact_rollups()`: the forecast accuracy of
 * the spans of local days in `pg_temp.rollup_spans`, its weather pairs read at `precision`
 * (0036 runs it after cutting the spans).
 */
export function accuracyRefresh(precision: Precision): string {
  return `

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
        ${accuracyMeasures(precision)}
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
`;
}

/** The views whose `real` values change type, and so are dropped and created again. */
const RETYPED = [
  'analytics.weather_hourly',
  'analytics.pollen_daily',
  'analytics.weather_daily',
  'analytics.weather_forecast',
  'analytics.weather_latest',
];

/** `text` as a SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function commentStatements(comment: (c: AnalyticsColumn) => string): string {
  return ANALYTICS_COLUMNS.flatMap(({ view, columns }) =>
    columns.map((c) => `comment on column ${view}.${c.name} is ${comment(c)};`),
  ).join('\n');
}

/**
 * Self-describing `analytics` columns (issue 27), and values at the precision the service sent.
 *
 * - Every column of every `analytics` view gets a `comment on column` (`ANALYTICS_COLUMNS`):
 *   meaning, unit, allowed values, time zone. BI tools show it as the field's description.
 * - Values stored as `real` are shown as the service sent them. A `real` widened to `double
 *   precision` shows float noise in every BI tool (`0.73` stored, ×100: `73.00000190734863`;
 *   `avg()` of a `real` 21.3: `21.299999237060547`). The service sends at most 2 decimals
 *   (humidity, cloud cover and precipitation probability as fractions 0.73 or percentages 73),
 *   so a value is rounded to 2 decimals (a percentage: its fraction to 4) in `double precision`:
 *   the nearest double to the decimal sent, which every tool prints as sent (`73`, `21.3`). A
 *   `real` holds 7 significant digits, and every value the service sends (|x| < 10,000 with 2
 *   decimals) is recovered exactly. Daily means keep 4 decimals; daily totals 2.
 * - `double precision`, not `numeric`: drivers hand numbers out as numbers (node-postgres gives
 *   `numeric` as a string), aggregates over years of hours stay fast (a `real` → `numeric` cast
 *   costs 5× the rounding), and `forecast_accuracy` and its rollup were `double precision`
 *   already.
 * - `weather_hourly`, `weather_forecast`, `weather_latest`, `weather_daily` and `pollen_daily`
 *   change column types (`real` → `double precision`), so they are dropped and created again,
 *   granted to `envdata_bi` and commented again; nothing depends on them. `forecast_accuracy`
 *   keeps its types (`create or replace`), and `envdata.refresh_daily_rollups()` reads the
 *   weather pairs as it does, so the daily accuracy sums what the view shows. The stored weather
 *   forecasts are marked for the next refresh, as 0019 does, so their accuracy is recomputed.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `
    drop view ${RETYPED.join(', ')};
    ${factViews('precise')}
    ${weatherSnapshotViews('precise')}
    ${forecastAccuracyView('precise')}
    ${refreshDailyRollups('precise')}

    insert into envdata.rollup_dirty (location_id, dataset, from_at, to_at)
    select location_id, 'weather'::envdata.dataset, min(valid_at), max(valid_at) + interval '1 hour'
    from envdata.weather_snapshot where product <> 'latest' group by location_id;

    ${commentStatements((c) => literal(c.meaning))}
  `,
    )
    .execute(db);
}

/**
 * Back to the stored precision and types; the columns lose their comments (0033's included:
 * its views are commented by this migration's table).
 */
export async function down(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `
    ${commentStatements(() => 'null')}
    drop view ${RETYPED.join(', ')};
    ${factViews('stored')}
    ${weatherSnapshotViews('stored')}
    ${forecastAccuracyView('stored')}
    ${refreshDailyRollups('stored')}
  `,
    )
    .execute(db);
}
