import { decideShareUnit, type ShareUnitVerdict } from '../../normalize/decide-share-unit.js';
import { fractionOf } from '../../normalize/fraction-of.js';
import { keepHourlyRecords, type RecordValues } from '../../normalize/keep-hourly-records.js';
import type { WeatherPayload, WeatherRecord } from '../../service/models.js';
import type { ShareUnit, Window } from '../../types.js';
import type { QuarantinedRecord } from '../../warehouse/fact-rows.js';
import { mapWeatherIcon } from './map-weather-icon.js';
import type { NormalizedWeather, WeatherRow } from './weather-rows.js';

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

const SHARES = ['humidity', 'cloudCover', 'precipProbability'] as const;

/**
 * What the shares of a weather answer say of their unit: all of its records' humidity, cloud
 * cover and precipitation probability taken together (`decideShareUnit`).
 */
export function weatherShareUnit(payload: WeatherPayload): ShareUnitVerdict {
  return decideShareUnit(payload.records.flatMap((r) => SHARES.map((field) => shareOf(r, field))));
}

/**
 * Weather payload (requested with `units=si`) → fact rows: humidity, cloud cover and
 * precipitation probability as fractions, read in the unit the whole answer is written in
 * (`weatherShareUnit`; when it cannot tell, `remembered`: the unit earlier answers of the same
 * source were in); the icon mapped to the six interface values with the raw value kept; records
 * outside `window` dropped; repeated hours collapse when identical and are quarantined when they
 * disagree; implausible records quarantined with the reason.
 *
 * An answer that cannot tell its unit with nothing remembered, or that contradicts itself,
 * lands its records with the shares empty (`null`) and quarantines each record that sent a
 * share, with the reason: the other values of the hour still land, and no share is guessed.
 */
export function normalizeWeather(
  payload: WeatherPayload,
  window?: Window,
  remembered?: ShareUnit,
): NormalizedWeather {
  const verdict = weatherShareUnit(payload);
  const unit =
    verdict === 'cannot-tell' ? remembered : verdict === 'contradictory' ? undefined : verdict;
  const { byHour, quarantined, ...stats } = keepHourlyRecords(payload, window, validate, (record) =>
    valuesOf(record, unit),
  );
  const rows = [...byHour].map(([hour, record]) => toRow(record, new Date(hour), unit));
  return {
    rows,
    ...stats,
    quarantined:
      unit === undefined
        ? [...quarantined, ...sharesSetAside(payload, byHour, verdict)]
        : quarantined,
  };
}

const SET_ASIDE_BECAUSE: Readonly<Record<ShareUnitVerdict, string>> = {
  fraction: '',
  percent: '',
  'cannot-tell':
    'every share of the answer is 0 or 1, which reads as fractions and as percentages alike, ' +
    'and no earlier answer of this source taught the unit',
  contradictory:
    'the answer has shares above 1 (percentages) and strictly between 0 and 1 (fractions), ' +
    'so no one unit reads it',
};

/** One entry per kept record that sent a share, when the answer's unit is unknown. */
function sharesSetAside(
  payload: WeatherPayload,
  byHour: ReadonlyMap<number, WeatherRecord>,
  verdict: ShareUnitVerdict,
): QuarantinedRecord[] {
  const indexOf = new Map(payload.records.map((record, index) => [record, index]));
  const out: QuarantinedRecord[] = [];
  for (const [hour, record] of byHour) {
    const sent = SHARES.filter((field) => shareOf(record, field) !== undefined);
    if (sent.length === 0) continue;
    out.push({
      recordIndex: indexOf.get(record) ?? -1,
      raw: record,
      hour: new Date(hour),
      reason:
        `share unit unknown: ${sent.map((f) => `${f} ${record[f]}`).join(', ')} not landed ` +
        `(${SET_ASIDE_BECAUSE[verdict]}); the record's other values landed`,
    });
  }
  return out;
}

function shareOf(record: WeatherRecord, field: (typeof SHARES)[number]): number | undefined {
  const value = record[field];
  return typeof value === 'number' ? value : undefined;
}

/** The values a weather record lands as: two copies of an hour must agree on all of them. */
function valuesOf(record: WeatherRecord, unit: ShareUnit | undefined): RecordValues {
  const { observedAt: _, stampedAtFetch: __, ...values } = toRow(record, record.at, unit);
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
    const value = shareOf(record, field);
    // A share above 1 makes its whole answer `percent` (weatherShareUnit), so 0–100 is the range.
    if (value !== undefined && fractionOf(value, 'percent') === undefined) {
      return `${field} ${value} is neither a fraction (0-1) nor a percentage (0-100)`;
    }
  }
  return undefined;
}

function share(value: number | undefined, unit: ShareUnit | undefined): number | null {
  return value === undefined || unit === undefined ? null : (fractionOf(value, unit) ?? null);
}

function toRow(r: WeatherRecord, observedAt: Date, unit: ShareUnit | undefined): WeatherRow {
  return {
    observedAt,
    temperatureC: r.temperature ?? null,
    apparentTemperatureC: r.apparentTemperature ?? null,
    dewPointC: r.dewPoint ?? null,
    humidityFraction: share(r.humidity, unit),
    pressureHpa: r.pressure ?? null,
    windSpeedMs: r.windSpeed ?? null,
    windGustMs: r.windGust ?? null,
    windBearingDeg: r.windBearing ?? null,
    cloudCoverFraction: share(r.cloudCover, unit),
    visibilityKm: r.visibility ?? null,
    uvIndex: r.uvIndex ?? null,
    ozoneDu: r.ozone ?? null,
    precipIntensityMmH: r.precipIntensity ?? null,
    precipProbabilityFraction: share(r.precipProbability, unit),
    precipType: r.precipType ?? null,
    summary: r.summary ?? null,
    icon: mapWeatherIcon(r.icon),
    iconRaw: r.icon ?? null,
    ...(r.stampedAtFetch && { stampedAtFetch: true }),
  };
}
