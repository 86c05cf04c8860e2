import type { WeatherRow } from './weather-rows.js';
import type { FactTable } from '../../warehouse/fact-table.js';
import { defineFactTable } from '../../warehouse/fact-table-spec.js';
import { snapshotStamp, type SnapshotTable } from '../../warehouse/write-snapshot.js';

/** The columns of `envdata.weather_hourly`. */
const WEATHER_HOURLY_SPEC = defineFactTable<WeatherRow>({
  table: 'envdata.weather_hourly',
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
});

/** `envdata.weather_hourly`: one row per location and hour. */
export const WEATHER_HOURLY: FactTable<WeatherRow> = {
  name: 'weather_hourly',
  spec: () => WEATHER_HOURLY_SPEC,
};

/** `envdata.weather_snapshot`: latest readings and forecasts as fetched, one row per valid hour. */
export const WEATHER_SNAPSHOT: SnapshotTable<WeatherRow> = {
  name: 'weather_snapshot',
  shareColumns: {
    humidity: 'humidity_fraction',
    cloudCover: 'cloud_cover_fraction',
    precipProbability: 'precip_probability_fraction',
  },
  async insert(trx, target, rows) {
    const result = await trx
      .insertInto('weather_snapshot')
      .values(
        rows.map((r) => ({
          ...snapshotStamp(target, r),
          temperature_c: r.temperatureC,
          apparent_temperature_c: r.apparentTemperatureC,
          dew_point_c: r.dewPointC,
          humidity_fraction: r.humidityFraction,
          pressure_hpa: r.pressureHpa,
          wind_speed_ms: r.windSpeedMs,
          wind_gust_ms: r.windGustMs,
          wind_bearing_deg: r.windBearingDeg,
          cloud_cover_fraction: r.cloudCoverFraction,
          visibility_km: r.visibilityKm,
          uv_index: r.uvIndex,
          ozone_du: r.ozoneDu,
          precip_intensity_mm_h: r.precipIntensityMmH,
          precip_probability_fraction: r.precipProbabilityFraction,
          precip_type: r.precipType,
          summary: r.summary,
          icon: r.icon,
          icon_raw: r.iconRaw,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n);
  },
};
