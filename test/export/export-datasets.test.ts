import { describe, expect, it } from 'vitest';
import { WEATHER_COLUMNS } from '../../src/datasets/weather/weather-tables.js';
import { exportDataset } from '../../src/export/export-datasets.js';

/** A dataset's columns as `name TYPE sql`, one string each, in order. */
const columnsOf = (name: string) =>
  exportDataset(name).columns.map((c) => `${c.name} ${c.type} ${c.sql}`);

const MIN_MAX_MEAN = (measure: string) =>
  ['min', 'max', 'mean'].map((s) => `${measure}_${s} FLOAT f.${measure}_${s}`);

// The Parquet files and the digest (`envdata-export-rows/v1`) depend on these lists, order and
// types included: a change here is a change of the export's format.
describe('the exported weather columns', () => {
  it('weather_hourly: the declared columns (WEATHER_COLUMNS) in the order and types of v1', () => {
    expect(columnsOf('weather_hourly')).toEqual([
      'location_id INTEGER f.location_id',
      'observed_at TIMESTAMPTZ f.observed_at',
      'temperature_c FLOAT f.temperature_c',
      'apparent_temperature_c FLOAT f.apparent_temperature_c',
      'dew_point_c FLOAT f.dew_point_c',
      'humidity_fraction FLOAT f.humidity_fraction',
      'pressure_hpa FLOAT f.pressure_hpa',
      'wind_speed_ms FLOAT f.wind_speed_ms',
      'wind_gust_ms FLOAT f.wind_gust_ms',
      'wind_bearing_deg FLOAT f.wind_bearing_deg',
      'cloud_cover_fraction FLOAT f.cloud_cover_fraction',
      'visibility_km FLOAT f.visibility_km',
      'uv_index FLOAT f.uv_index',
      'ozone_du FLOAT f.ozone_du',
      'precip_intensity_mm_h FLOAT f.precip_intensity_mm_h',
      'precip_probability_fraction FLOAT f.precip_probability_fraction',
      'precip_type VARCHAR f.precip_type',
      'summary VARCHAR f.summary',
      'icon VARCHAR f.icon::text',
      'icon_raw VARCHAR f.icon_raw',
      'answer_id BIGINT f.answer_id',
    ]);
  });

  it('weather_daily: min, max and mean of each measure of the rollup, in the order of v1', () => {
    expect(columnsOf('weather_daily')).toEqual([
      'location_id INTEGER f.location_id',
      'local_date DATE f.local_date',
      'hours INTEGER f.hours',
      ...[
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
      ].flatMap(MIN_MAX_MEAN),
      'precip_total_mm FLOAT f.precip_total_mm',
    ]);
  });

  it("weather_daily's measures are declared hourly measures (a share in percent)", () => {
    const hourly = new Set(WEATHER_COLUMNS.filter((c) => c.type === 'real').map((c) => c.name));
    const measures = exportDataset('weather_daily')
      .columns.filter((c) => c.name.endsWith('_mean'))
      .map((c) => c.name.replace(/_mean$/, '').replace(/_pct$/, '_fraction'));
    expect(measures.filter((m) => !hourly.has(m))).toEqual([]);
  });
});
