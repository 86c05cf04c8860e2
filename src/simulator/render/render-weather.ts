import type { WeatherHour } from '../data/generate-weather-hour.js';
import { formatTwoDecimals as f2 } from './format-two-decimals.js';
import { percentSharesOf, type ShapeVariants } from './shape-variants.js';
import { successMessage } from './success-message.js';

/** `si`: °C, m/s, km, mm/h. `imperial` (the service's default): °F, mph, miles, in/h. */
export type WeatherUnits = 'si' | 'imperial';

/**
 * One weather record as JSON text, in the units and variants asked for: each share field as a
 * fraction or, where the shapes say (`percentSharesOf`), a whole percentage. `latest`, the
 * coordinates of the latest answer's one object: they follow `time` (with `recordedKeyOrder`
 * they come last), and with `noLatestStamp` the record has no `time`.
 *
 * Written as text rather than through `JSON.stringify` for speed (history answers are the hot
 * path); every value is a finite number or a plain ASCII word, so the text is valid JSON.
 */
export function renderWeatherRecord(
  hour: WeatherHour,
  units: WeatherUnits,
  shapes: ShapeVariants,
  latest?: { lat: number; lng: number },
): string {
  const imperial = units === 'imperial';
  const temperature = imperial ? fahrenheit(hour.temperature) : hour.temperature;
  const apparent = imperial ? fahrenheit(hour.apparentTemperature) : hour.apparentTemperature;
  const dewPoint = imperial ? fahrenheit(hour.dewPoint) : hour.dewPoint;
  const windSpeed = imperial ? round2(hour.windSpeed * 2.236936) : hour.windSpeed;
  const windGust = imperial ? round2(hour.windGust * 2.236936) : hour.windGust;
  const visibility = imperial ? round2(hour.visibility * 0.621371) : hour.visibility;
  const precip = imperial ? round2(hour.precipIntensity / 25.4) : hour.precipIntensity;
  const percent = percentSharesOf(shapes);
  const humidity = percent.humidity ? Math.round(hour.humidity * 100) : hour.humidity;
  const cloudCover = percent.cloudCover ? Math.round(hour.cloudCover * 100) : hour.cloudCover;
  const precipProbability = percent.precipProbability
    ? Math.round(hour.precipProbability * 100)
    : hour.precipProbability;
  const time = latest !== undefined && shapes.noLatestStamp ? '' : `"time":${hour.time},`;
  const where =
    latest === undefined
      ? ''
      : `"lat":${coordinate(latest.lat, shapes)},"lng":${coordinate(latest.lng, shapes)}`;
  if (shapes.recordedKeyOrder) {
    // The Dark-Sky order of the documented examples, coordinates last.
    return (
      `{${time}"precipIntensity":${f2(precip)},"precipProbability":${f2(precipProbability)},` +
      `"precipType":"${hour.precipType}","temperature":${f2(temperature)},` +
      `"apparentTemperature":${f2(apparent)},"summary":"${hour.summary}","icon":"${hour.icon}",` +
      `"dewPoint":${f2(dewPoint)},"humidity":${f2(humidity)},"pressure":${f2(hour.pressure)},` +
      `"windSpeed":${f2(windSpeed)},"windGust":${f2(windGust)},"windBearing":${hour.windBearing},` +
      `"cloudCover":${f2(cloudCover)},"uvIndex":${hour.uvIndex},"visibility":${f2(visibility)},` +
      `"ozone":${f2(hour.ozone)}${where && ','}${where}}`
    );
  }
  return (
    `{${time}${where}${where && ','}"temperature":${f2(temperature)},"apparentTemperature":${f2(apparent)},` +
    `"dewPoint":${f2(dewPoint)},"humidity":${f2(humidity)},"pressure":${f2(hour.pressure)},` +
    `"windSpeed":${f2(windSpeed)},"windGust":${f2(windGust)},"windBearing":${hour.windBearing},` +
    `"cloudCover":${f2(cloudCover)},"visibility":${f2(visibility)},"uvIndex":${hour.uvIndex},` +
    `"ozone":${f2(hour.ozone)},"precipIntensity":${f2(precip)},"precipProbability":${f2(precipProbability)},` +
    `"precipType":"${hour.precipType}","summary":"${hour.summary}","icon":"${hour.icon}"}`
  );
}

/**
 * Weather latest: `{"message", "data": {time, lat, lng, …values}}`, `data` one object (without
 * `time` with `noLatestStamp`).
 */
export function renderWeatherLatestBody(record: string, shapes: ShapeVariants): string {
  return `{"message":"${successMessage(shapes)}","data":${record}}`;
}

/**
 * Weather history: `{"status", "data": {lat, lng, "history": […]}}`; with `swappedEnvelopes`
 * `message` instead of `status`, with `bareArrays` `data` the records themselves.
 */
export function renderWeatherHistoryBody(
  lat: number,
  lng: number,
  records: readonly string[],
  shapes: ShapeVariants,
): string {
  const envelope = shapes.swappedEnvelopes ? 'message' : 'status';
  return `{"${envelope}":"${successMessage(shapes)}","data":${payload(lat, lng, 'history', records, shapes)}}`;
}

/** Weather forecast: `{"message", "data": {lat, lng, "forecast": […]}}`, or a bare array. */
export function renderWeatherForecastBody(
  lat: number,
  lng: number,
  records: readonly string[],
  shapes: ShapeVariants,
): string {
  return `{"message":"${successMessage(shapes)}","data":${payload(lat, lng, 'forecast', records, shapes)}}`;
}

function payload(
  lat: number,
  lng: number,
  key: string,
  records: readonly string[],
  shapes: ShapeVariants,
): string {
  const list = `[${records.join(',')}]`;
  if (shapes.bareArrays) return list;
  return `{"lat":${coordinate(lat, shapes)},"lng":${coordinate(lng, shapes)},"${key}":${list}}`;
}

function coordinate(value: number, shapes: ShapeVariants): string {
  return shapes.stringCoordinates ? `"${value}"` : `${value}`;
}

function fahrenheit(celsius: number): number {
  return round2((celsius * 9) / 5 + 32);
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
