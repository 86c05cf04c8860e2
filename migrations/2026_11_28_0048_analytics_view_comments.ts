import { sql, type Kysely } from 'kysely';

/**
 * A description on every analytics view, not only on its columns.
 *
 * 0034 commented every column BI reads, but nine of the seventeen views had no `COMMENT ON VIEW`:
 * `envdata dbt-sources` then emitted no table description for them and BI catalogs (Metabase,
 * Superset, DataHub) showed them blank. Each text says what one row is and what to filter on.
 * `CREATE OR REPLACE VIEW` keeps a view's comment; a migration that drops and creates one again
 * must comment it again (test/warehouse/analytics-views.test.ts checks every view).
 *
 * Frozen in time: plain SQL, no app imports.
 */
const VIEW_COMMENTS: readonly (readonly [view: string, comment: string])[] = [
  [
    'analytics.locations',
    'One row per registered location (active or retired): its name, coordinates, country, time zone and pollen region. Join the other views on location_id.',
  ],
  [
    'analytics.weather_hourly',
    'The weather history: one row per location and hour (observed_at, UTC) as the service sent it, shares in percent. Hours not landed have no row; analytics.coverage and analytics.weather_hour_status say why.',
  ],
  [
    'analytics.pollen_hourly',
    'The pollen history: one row per location, hour (observed_at, UTC) and pollen type (grass, tree, weed) with its count and risk level. Hours not landed have no row; analytics.coverage and analytics.pollen_hour_status say why.',
  ],
  [
    'analytics.pollen_species_hourly',
    'The pollen history per species: one row per location, hour (observed_at, UTC) and species, with its category, count and risk level.',
  ],
  [
    'analytics.weather_daily',
    'Daily weather per location: one row per location and local day (its time zone) with the minimum, maximum and mean of each measure over the hours that landed; hours says how complete the day is.',
  ],
  [
    'analytics.pollen_daily',
    'Daily pollen per location: one row per location, local day (its time zone) and pollen type with the minimum, maximum and mean count and the highest risk level; hours says how complete the day is.',
  ],
  [
    'analytics.coverage',
    'One row per location and dataset: the hour ranges that landed, the gaps between them and the holes the ledger recorded by cause (missing upstream, quarantined, not covered, no data). What a completeness check reads.',
  ],
  [
    'analytics.forecast_accuracy',
    'Each stored forecast hour beside what was observed for it: one row per location, forecast fetch, forecast hour and measure (pollen type or weather measure), with the lead time in hours. Only hours that were both forecast and observed.',
  ],
  [
    'analytics.forecast_accuracy_daily',
    'Forecast errors summed per location, local day, dataset, product, measure and lead day (mae, rmse, bias; for pollen, risk level hits): what a forecast accuracy dashboard reads.',
  ],
];

/** `text` as a SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const [view, comment] of VIEW_COMMENTS) {
    await sql.raw(`comment on view ${view} is ${literal(comment)}`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [view] of VIEW_COMMENTS) {
    await sql.raw(`comment on view ${view} is null`).execute(db);
  }
}
