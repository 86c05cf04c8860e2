import type { WeatherHour } from '../data/generate-weather-hour.js';

/** What a `conflict` fault adds to the repeated hour's temperature, °C. */
export const CONFLICT_TEMPERATURE_DELTA_C = 3.5;
/** How far a `conflict` fault moves the repeated hour's humidity (a fraction). */
export const CONFLICT_HUMIDITY_DELTA = 0.2;

/**
 * The hour a `conflict` fault repeats, with different values: `temperature` +3.5 °C and
 * `humidity` 0.2 lower when above one half, else 0.2 higher (so it stays within 0–1). The stamp
 * and every other value are the same, so it is a second, disagreeing record of the same hour.
 */
export function conflictingWeatherHour(hour: WeatherHour): WeatherHour {
  return {
    ...hour,
    temperature: hour.temperature + CONFLICT_TEMPERATURE_DELTA_C,
    humidity:
      hour.humidity > 0.5
        ? hour.humidity - CONFLICT_HUMIDITY_DELTA
        : hour.humidity + CONFLICT_HUMIDITY_DELTA,
  };
}
