import type {
  LatestRecord,
  LatestWeatherPayload,
  WeatherPayload,
  WeatherRecord,
} from './models.js';
import { parseJsonBody, type ParseContext, type PayloadSource } from './parse-envelope.js';
import { parsePayload } from './parse-payload.js';
import { parseRecordInstant, readRecordInstant } from './parse-record-instant.js';
import {
  RecordRejection,
  isJsonObject,
  readNumber,
  readString,
  type JsonObject,
} from './record-fields.js';

/**
 * Parses the body of any weather endpoint without calling the service: latest (`data` is one
 * object), history (`status` envelope, `data.history`) and forecast (`data.forecast`), or a bare
 * `data` array in each case.
 *
 * Throws `MALFORMED_RESPONSE` when the envelope does not fit; a record that does not fit goes to
 * `rejected` and the valid ones are returned. Values are kept as sent (SI when asked with
 * `units=si`); percentages are converted later, in `src/datasets/weather/normalize-weather.ts`.
 */
export function parseWeatherBody(body: string, source: PayloadSource = {}): WeatherPayload {
  const context: ParseContext = { rawBody: body, ...source };
  return parseWeatherDocument(parseJsonBody(context), context);
}

/** Like `parseWeatherBody`, for a body already parsed with `JSON.parse`. */
export function parseWeatherDocument(json: unknown, context: ParseContext): WeatherPayload {
  return parsePayload(json, context, true, parseWeatherRecord);
}

/**
 * `parseWeatherDocument` for the latest answer (`/weather/latest/by-lat-lng`): a record without
 * any stamp is kept with `at` undefined (`LatestRecord`) instead of refused.
 */
export function parseLatestWeatherDocument(
  json: unknown,
  context: ParseContext,
): LatestWeatherPayload {
  return parsePayload(json, context, true, parseLatestWeatherRecord);
}

/**
 * One weather record. Throws `RecordRejection` when it does not fit: not an object, no readable
 * stamp, a non-numeric measurement or a non-string text field. Missing measurements are
 * `undefined`.
 */
export function parseWeatherRecord(raw: unknown): WeatherRecord {
  if (!isJsonObject(raw)) throw new RecordRejection('the record is not an object');
  return readWeatherRecord(raw, parseRecordInstant(raw));
}

/** `parseWeatherRecord` for a latest reading: one without any stamp is kept, `at` undefined. */
export function parseLatestWeatherRecord(raw: unknown): LatestRecord<WeatherRecord> {
  if (!isJsonObject(raw)) throw new RecordRejection('the record is not an object');
  return readWeatherRecord(raw, readRecordInstant(raw));
}

/** The fields of a weather record but its stamp, read already (`at`). */
function readWeatherRecord<At extends Date | undefined>(
  raw: JsonObject,
  at: At,
): Omit<WeatherRecord, 'at'> & { readonly at: At } {
  return {
    at,
    temperature: readNumber(raw.temperature, 'temperature'),
    apparentTemperature: readNumber(raw.apparentTemperature, 'apparentTemperature'),
    dewPoint: readNumber(raw.dewPoint, 'dewPoint'),
    humidity: readNumber(raw.humidity, 'humidity'),
    pressure: readNumber(raw.pressure, 'pressure'),
    windSpeed: readNumber(raw.windSpeed, 'windSpeed'),
    windGust: readNumber(raw.windGust, 'windGust'),
    windBearing: readNumber(raw.windBearing, 'windBearing'),
    cloudCover: readNumber(raw.cloudCover, 'cloudCover'),
    visibility: readNumber(raw.visibility, 'visibility'),
    uvIndex: readNumber(raw.uvIndex, 'uvIndex'),
    ozone: readNumber(raw.ozone, 'ozone'),
    precipIntensity: readNumber(raw.precipIntensity, 'precipIntensity'),
    precipProbability: readNumber(raw.precipProbability, 'precipProbability'),
    precipType: readString(raw.precipType, 'precipType'),
    summary: readString(raw.summary, 'summary'),
    icon: readString(raw.icon, 'icon'),
  };
}
