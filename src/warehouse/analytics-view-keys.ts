/**
 * The key of each view of schema `analytics`: the columns that together name one row, none of
 * them null. Views have no constraints to read them from, so they are written down here, once:
 * `envdata dbt-sources` turns them into dbt tests, and a test holds each of them unique and not
 * null in a filled warehouse.
 */
export const ANALYTICS_VIEW_KEYS: Readonly<Record<string, readonly string[]>> = {
  locations: ['location_id'],
  pollen_hourly: ['location_id', 'observed_at', 'pollen_type'],
  // A species is its name within its category (envdata.pollen_species).
  pollen_species_hourly: ['location_id', 'observed_at', 'category', 'species'],
  weather_hourly: ['location_id', 'observed_at'],
  pollen_daily: ['location_id', 'local_date', 'pollen_type'],
  weather_daily: ['location_id', 'local_date'],
  // The products of the two datasets differ, so the product names the dataset.
  forecast_accuracy: ['location_id', 'product', 'fetched_at', 'forecast_for', 'measure'],
  forecast_accuracy_daily: ['location_id', 'local_date', 'product', 'measure', 'lead_day'],
  coverage: ['location_id', 'dataset'],
  dataset_freshness: ['dataset'],
  // One forecast (one fetched_at) per location and product.
  pollen_forecast: ['location_id', 'product', 'valid_at', 'pollen_type'],
  pollen_species_forecast: ['location_id', 'product', 'valid_at', 'category', 'species'],
  weather_forecast: ['location_id', 'product', 'valid_at'],
  // One reading (one fetched_at and hour) per location.
  pollen_latest: ['location_id', 'pollen_type'],
  weather_latest: ['location_id'],
  pollen_hour_status: ['location_id', 'observed_at'],
  weather_hour_status: ['location_id', 'observed_at'],
  answers: ['answer_id'],
  // One source per fact row: the fact view's key.
  weather_hourly_source: ['location_id', 'observed_at'],
  pollen_hourly_source: ['location_id', 'observed_at', 'pollen_type'],
  pollen_species_hourly_source: ['location_id', 'observed_at', 'category', 'species'],
  // A row's values are replaced at most once by one landing (its transaction's start).
  weather_hourly_revisions: ['location_id', 'observed_at', 'valid_to'],
  pollen_hourly_revisions: ['location_id', 'observed_at', 'pollen_type', 'valid_to'],
  pollen_species_hourly_revisions: [
    'location_id',
    'observed_at',
    'category',
    'species',
    'valid_to',
  ],
};
