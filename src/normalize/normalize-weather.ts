import type { WeatherPayload, WeatherRecord } from '../service/models.js';
import type { Window } from '../types.js';
import type { NormalizedWeather, WeatherRow } from '../warehouse/fact-rows.js';
import { fractionOf } from './fraction-of.js';
import { keepHourlyRecords, type RecordValues } from './keep-hourly-records.js';
import { mapWeatherIcon } from './map-weather-icon.js';

/** Plausible SI ranges; a value outside them quarantines the record rather than land nonsense. */
const RANGES: readonly [keyof WeatherRecord, number, number][] = [
  ['temperature', -100, 70],
  ['apparentTemperature', -120, 90],
  ['dewPoint', -100, 60],
  ['pressure', 800, 1_100],
  ['windSpeed', 0, 120],
  ['windGust', 0, 150],
  ['windBearing', 0, 360],
  ['visibility', 0, 1_000],
  ['uvIndex', 0, 25],
  ['ozone', 0, 1_000],
  ['precipIntensity', 0, 500],
];

const SHARES: readonly (keyof WeatherRecord)[] = ['humidity', 'cloudCover', 'precipProbability'];

/**
 * Weather payload (requested with `units=si`) → fact rows: fractions for humidity, cloud cover
 * and precipitation probability (a value above 1 read as percent); the icon mapped to the six
 * interface values with the raw value kept; records outside `window` dropped; repeated hours
 * collapse when identical and are quarantined when they disagree; implausible records quarantined with the reason.
 */
export function normalizeWeather(payload: WeatherPayload, window?: Window): NormalizedWeather {
  const { byHour, ...stats } = keepHourlyRecords(payload, window, validate, valuesOf);
  const rows = [...byHour].map(([hour, record]) => toRow(record, new Date(hour)));
  return { rows, ...stats };
}

/** The values a weather record lands as: two copies of an hour must agree on all of them. */
function valuesOf(record: WeatherRecord): RecordValues {
  const { observedAt: _, ...values } = toRow(record, record.at);
  return values;
}

function validate(record: WeatherRecord): string | undefined {
  for (const [field, min, max] of RANGES) {
    const value = record[field];
    if (typeof value === 'number' && !(value >= min && value <= max)) {
      return `${field} ${value} is outside the plausible SI range [${min}, ${max}]`;
    }
  }
  for (const field of SHARES) {
    const value = record[field];
    if (typeof value === 'number' && fractionOf(value) === undefined) {
      return `${field} ${value} is neither a fraction (0-1) nor a percentage (0-100)`;
    }
  }
  return undefined;
}

function share(value: number | undefined): number | null {
  return value === undefined ? null : (fractionOf(value) ?? null);
}

function toRow(r: WeatherRecord, observedAt: Date): WeatherRow {
  return {
    observedAt,
    temperatureC: r.temperature ?? null,
    apparentTemperatureC: r.apparentTemperature ?? null,
    dewPointC: r.dewPoint ?? null,
    humidityFraction: share(r.humidity),
    pressureHpa: r.pressure ?? null,
    windSpeedMs: r.windSpeed ?? null,
    windGustMs: r.windGust ?? null,
    windBearingDeg: r.windBearing ?? null,
    cloudCoverFraction: share(r.cloudCover),
    visibilityKm: r.visibility ?? null,
    uvIndex: r.uvIndex ?? null,
    ozoneDu: r.ozone ?? null,
    precipIntensityMmH: r.precipIntensity ?? null,
    precipProbabilityFraction: share(r.precipProbability),
    precipType: r.precipType ?? null,
    summary: r.summary ?? null,
    icon: mapWeatherIcon(r.icon),
    iconRaw: r.icon ?? null,
  };
}
