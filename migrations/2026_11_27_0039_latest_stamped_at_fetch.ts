import { sql, type Kysely } from 'kysely';
import type {
  AnalyticsColumn,
  AnalyticsView,
} from './2026_11_27_0034_analytics_column_comments.js';
import { ANALYTICS_COLUMNS as BEFORE } from './2026_11_27_0037_bi_freshness_view.js';

/** The snapshot tables: each gets the flag, `false` for every row stored before. */
const SNAPSHOT_TABLES = [
  'envdata.pollen_snapshot',
  'envdata.pollen_species_snapshot',
  'envdata.weather_snapshot',
];

const OBSERVED_AT =
  "start of the hour of the reading, UTC: the service's own stamp rounded down to the hour; a reading the service sent without a stamp is stamped with the start of the hour it was fetched in (see stamped_at_fetch)";

const STAMPED_AT_FETCH: AnalyticsColumn = {
  name: 'stamped_at_fetch',
  type: 'boolean',
  nullable: false,
  meaning:
    "true when the service sent the reading without a timestamp and envdata stamped it with the hour of the fetch (observed_at is then the start of the hour of fetched_at, UTC); false when observed_at is the service's own stamp",
};

/** The latest-reading views, with what 0033 and 0034 gave them. */
const LATEST = [
  {
    view: 'analytics.pollen_latest',
    table: 'envdata.pollen_snapshot',
    values: 's.pollen_type::text as pollen_type, s.count, s.risk_level::text as risk_level',
    grain: 'location and pollen type',
  },
  {
    view: 'analytics.weather_latest',
    table: 'envdata.weather_snapshot',
    values: weatherValues('s'),
    grain: 'location',
  },
] as const;

/**
 * 0034's weather values of a snapshot `alias` as the views show them: `real` values to 2
 * decimals as sent, fractions as percentages to 2 decimals, text as is.
 */
export function weatherValues(alias: string): string {
  const sent = (column: string) =>
    `round(${alias}.${column}::double precision * 100) / 100 as ${column}`;
  const share = (column: string, name: string) =>
    `round(${alias}.${column}::double precision * 10000) / 100 as ${name}`;
  return [
    sent('temperature_c'),
    sent('apparent_temperature_c'),
    sent('dew_point_c'),
    share('humidity_fraction', 'humidity_pct'),
    sent('pressure_hpa'),
    sent('wind_speed_ms'),
    sent('wind_gust_ms'),
    sent('wind_bearing_deg'),
    share('cloud_cover_fraction', 'cloud_cover_pct'),
    sent('visibility_km'),
    sent('uv_index'),
    sent('ozone_du'),
    sent('precip_intensity_mm_h'),
    share('precip_probability_fraction', 'precip_probability_pct'),
    `${alias}.precip_type`,
    `${alias}.summary`,
    `${alias}.icon::text as icon`,
  ].join(', ');
}

/**
 * The meaning of every column of every `analytics` view once this migration ran (see
 * src/warehouse/analytics-columns.ts): 0037's, the latest views' `observed_at` telling how a
 * stampless reading is stamped, and their new last column `stamped_at_fetch`.
 */
export const ANALYTICS_COLUMNS: readonly AnalyticsView[] = BEFORE.map((v) =>
  LATEST.some((r) => r.view === v.view)
    ? {
        view: v.view,
        columns: [
          ...v.columns.map((c) => (c.name === 'observed_at' ? { ...c, meaning: OBSERVED_AT } : c)),
          STAMPED_AT_FETCH,
        ],
      }
    : v,
);

/** `text` as a SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The latest views as 0033 and 0034 made them, with `stamped_at_fetch` last when `flagged`. */
export function latestViews(create: 'create' | 'create or replace', flagged: boolean): string {
  return LATEST.map(
    (r) => `
    ${create} view ${r.view} as
    select l.location_id, l.name as location_name, s.fetched_at, s.valid_at as observed_at,
      s.valid_at at time zone l.timezone as observed_at_local,
      ${r.values}${flagged ? ',\n      s.stamped_at_fetch' : ''}
    from envdata.location l
    cross join lateral (
      select n.* from ${r.table} n
      where n.location_id = l.location_id and n.product = 'latest'
      order by n.fetched_at desc, n.valid_at desc fetch first 1 rows with ties
    ) s;`,
  ).join('\n');
}

/** `comment on column` of every column of the latest views, as `columns` says. */
function latestComments(columns: readonly AnalyticsView[]): string {
  return columns
    .filter(({ view }) => LATEST.some((r) => r.view === view))
    .flatMap(({ view, columns: list }) =>
      list.map(({ name, meaning }) => `comment on column ${view}.${name} is ${literal(meaning)};`),
    )
    .join('\n');
}

/**
 * A latest reading the service sent without a timestamp is stored (issue 27), stamped with the
 * hour it was fetched in, and says so:
 *
 * - `envdata.pollen_snapshot`, `pollen_species_snapshot` and `weather_snapshot` get
 *   `stamped_at_fetch`: true on the rows of such a reading, whose `valid_at` is then the start of
 *   the UTC hour of `fetched_at`. Only latest readings are ever stamped so (a history or
 *   forecast record without a stamp is still refused: its hour cannot be guessed). The tables
 *   are partitioned by fetch month; a column with a constant default is added to the parent
 *   and its partitions without rewriting a row.
 * - `analytics.pollen_latest` and `analytics.weather_latest` show it as their last column,
 *   `stamped_at_fetch`, and `observed_at` says how such a reading is stamped. They are replaced
 *   (`create or replace`: the same columns, one more at the end), so their grants to
 *   `envdata_bi`, view comments and column comments stay; the columns of both are commented
 *   again from `ANALYTICS_COLUMNS`. No view reads them (`pg_depend`).
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `
    ${SNAPSHOT_TABLES.map(
      (table) => `alter table ${table} add column stamped_at_fetch boolean not null default false;`,
    ).join('\n')}
    ${latestViews('create or replace', true)}
    ${latestComments(ANALYTICS_COLUMNS)}`,
    )
    .execute(db);
}

/**
 * The flag dropped, and the latest views without it, granted and commented as before (created
 * again after the columns go: their `select n.*` would read the flag again).
 */
export async function down(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `
    drop view ${LATEST.map((r) => r.view).join(', ')};
    ${SNAPSHOT_TABLES.map((table) => `alter table ${table} drop column stamped_at_fetch;`).join('\n')}
    ${latestViews('create', false)}
    ${LATEST.map(
      (r) => `
    grant select on ${r.view} to envdata_bi;
    comment on view ${r.view} is ${literal(`The newest latest reading of each location (of its newest fetch, the newest hour), one row per ${r.grain}.`)};`,
    ).join('\n')}
    ${latestComments(BEFORE)}`,
    )
    .execute(db);
}
