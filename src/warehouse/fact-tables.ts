import type { PollenSpeciesRow, PollenTypeRow, WeatherRow } from '../normalize/fact-rows.js';
import { defineFactTable, type FactTable } from './fact-table.js';

/** `envdata.weather_hourly`: one row per location and hour. */
export const WEATHER_HOURLY = defineFactTable<WeatherRow>({
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

/** `envdata.pollen_hourly`: one row per location, hour and pollen type. */
export const POLLEN_HOURLY = defineFactTable<PollenTypeRow>({
  table: 'envdata.pollen_hourly',
  key: [{ name: 'pollen_type', type: 'envdata.pollen_type', value: (r) => r.pollenType }],
  columns: [
    { name: 'count', type: 'int', value: (r) => r.count },
    { name: 'risk_level', type: 'envdata.risk_level', value: (r) => r.riskLevel },
  ],
});

/** The id of a (category, species) pair in `envdata.pollen_species`, already resolved. */
export interface SpeciesIdLookup {
  require(category: PollenSpeciesRow['category'], species: string): number;
}

/**
 * `envdata.pollen_species_hourly`: one row per location, hour and species, the species by the
 * id `species` resolved for it (`SpeciesIds`).
 */
export function pollenSpeciesHourly(species: SpeciesIdLookup): FactTable<PollenSpeciesRow> {
  return defineFactTable<PollenSpeciesRow>({
    table: 'envdata.pollen_species_hourly',
    key: [
      {
        name: 'species_id',
        type: 'smallint',
        value: (r) => species.require(r.category, r.species),
      },
    ],
    columns: [
      { name: 'count', type: 'int', value: (r) => r.count },
      { name: 'risk_level', type: 'envdata.risk_level', value: (r) => r.riskLevel },
    ],
  });
}
