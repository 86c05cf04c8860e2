import type { WeatherHour } from './generate-weather-hour.js';

/**
 * The revised values of a weather hour (`ReviseOption`): 0.7 °C warmer (temperature and apparent
 * temperature), humidity 0.02 nearer 0.5 (so it stays a fraction strictly inside 0–1), the dew
 * point recomputed from both (Magnus), pressure 0.3 hPa higher; everything else as it was. Values
 * keep the decimals the service sends (two, pressure one).
 */
export function reviseWeatherHour(hour: WeatherHour): WeatherHour {
  const temperature = round2(hour.temperature + 0.7);
  const humidity = round2(hour.humidity >= 0.5 ? hour.humidity - 0.02 : hour.humidity + 0.02);
  const gamma = Math.log(humidity) + (17.62 * temperature) / (243.12 + temperature);
  return {
    ...hour,
    temperature,
    apparentTemperature: round2(hour.apparentTemperature + 0.7),
    humidity,
    dewPoint: round2((243.12 * gamma) / (17.62 - gamma)),
    pressure: Math.round((hour.pressure + 0.3) * 10) / 10,
  };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
