import type { WeatherRow } from './weather-rows.js';
import { declareTables } from '../../warehouse/declare-tables.js';

/**
 * `envdata.weather_hourly` (one row per location and hour) and `envdata.weather_snapshot`
 * (latest readings and forecasts as fetched, one row per valid hour): their columns.
 */
const WEATHER = declareTables<WeatherRow>()({
  fact: 'weather_hourly',
  snapshot: 'weather_snapshot',
  key: [],
  columns: [
    { name: 'temperature_c', type: 'real', value: (r) => r.temperatureC },
    { name: 'apparent_temperature_c', type: 'real', value: (r) => r.apparentTemperatureC },
    { name: 'dew_point_c', type: 'real', value: (r) => r.dewPointC },
    { name: 'humidity_fraction', type: 'real', value: (r) => r.humidityFraction },
    { name: 'pressure_hpa', type: 'real', value: (r) => r.pressureHpa },
    { name: 'wind_speed_ms', type: 'real', value: (r) => r.windSpeedMs },
    { name: 'wind_gust_ms', type: 'real', value: (r) => r.windGustMs },
    { name: 'wind_bearing_deg', type: 'real', value: (r) => r.windBearingDeg },
    { name: 'cloud_cover_fraction', type: 'real', value: (r) => r.cloudCoverFraction },
    { name: 'visibility_km', type: 'real', value: (r) => r.visibilityKm },
    { name: 'uv_index', type: 'real', value: (r) => r.uvIndex },
    { name: 'ozone_du', type: 'real', value: (r) => r.ozoneDu },
    { name: 'precip_intensity_mm_h', type: 'real', value: (r) => r.precipIntensityMmH },
    {
      name: 'precip_probability_fraction',
      type: 'real',
      value: (r) => r.precipProbabilityFraction,
    },
    { name: 'precip_type', type: 'text', value: (r) => r.precipType },
    { name: 'summary', type: 'text', value: (r) => r.summary },
    { name: 'icon', type: 'envdata.weather_icon', value: (r) => r.icon },
    { name: 'icon_raw', type: 'text', value: (r) => r.iconRaw },
  ],
  shares: {
    humidity: 'humidity_fraction',
    cloudCover: 'cloud_cover_fraction',
    precipProbability: 'precip_probability_fraction',
  },
});

/** `envdata.weather_hourly`: one row per location and hour. */
export const WEATHER_HOURLY = WEATHER.fact;

/** `envdata.weather_snapshot`: latest readings and forecasts as fetched, one row per valid hour. */
export const WEATHER_SNAPSHOT = WEATHER.snapshot;

/**
 * The columns of both weather tables after `location_id, observed_at` (and a snapshot's stamp),
 * in the tables' order: the measures (`real`), then the text columns.
 */
export const WEATHER_COLUMNS = WEATHER.columns;
