import type { WeatherRow } from '../../warehouse/fact-rows.js';
import type { FactTable } from '../../warehouse/fact-table.js';
import { upsertWeatherHourly } from '../../warehouse/upsert-weather-hourly.js';
import type { SnapshotTable } from '../../warehouse/write-snapshot.js';

/** `envdata.weather_hourly`: one row per location and hour. */
export const WEATHER_HOURLY: FactTable<WeatherRow> = {
  name: 'weather_hourly',
  write: (trx, groups) => upsertWeatherHourly(trx, groups),
};

/** `envdata.weather_snapshot`: latest readings and forecasts as fetched, one row per valid hour. */
export const WEATHER_SNAPSHOT: SnapshotTable<WeatherRow> = {
  name: 'weather_snapshot',
  async insert(trx, { locationId, product, fetchedAt }, rows) {
    const result = await trx
      .insertInto('weather_snapshot')
      .values(
        rows.map((r) => ({
          location_id: locationId,
          product,
          fetched_at: fetchedAt,
          valid_at: r.observedAt,
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
