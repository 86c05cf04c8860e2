import {
  decideShareUnit,
  resolveShareUnits,
  type ShareUnitVerdict,
  type ShareUnitVerdicts,
} from '../../normalize/decide-share-unit.js';
import { fractionOf } from '../../normalize/fraction-of.js';
import { keepHourlyRecords, type RecordValues } from '../../normalize/keep-hourly-records.js';
import { SET_ASIDE_REASONS, shareUnitUnknownReason } from '../../normalize/set-aside-reason.js';
import type { WeatherPayload, WeatherRecord } from '../../service/models.js';
import {
  SHARE_FIELDS,
  type ShareField,
  type ShareUnit,
  type ShareUnits,
  type Window,
} from '../../types.js';
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

/**
 * What the shares of a weather answer say of their unit, field by field: all of its records'
 * humidity, then all of their cloud cover, then all of their precipitation probability
 * (`decideShareUnit`); one field never decides another's.
 */
export function weatherShareUnits(payload: WeatherPayload): ShareUnitVerdicts {
  const verdicts = {} as Record<ShareField, ShareUnitVerdict>;
  for (const field of SHARE_FIELDS) {
    verdicts[field] = decideShareUnit(payload.records.map((r) => shareOf(r, field)));
  }
  return verdicts;
}

/**
 * Weather payload (requested with `units=si`) → fact rows: humidity, cloud cover and
 * precipitation probability as fractions, each field read in the unit its own values in the
 * answer tell (`weatherShareUnits`; when they cannot tell, the unit `remembered` holds for that
 * field: the unit earlier answers of the same source wrote it in); the icon mapped to the six
 * interface values with the raw value kept; records outside `window` dropped; repeated hours
 * collapse when identical and are quarantined when they disagree; implausible records
 * quarantined with the reason.
 *
 * A field whose unit stays unknown (its values cannot tell with nothing remembered, or
 * contradict each other) lands its 0s as 0 (0 in both units) and its other values empty
 * (`null`), and each record that sent such a value is quarantined with the reason, naming only
 * those values: the record's other fields, and the other values of its hour, still land.
 */
export function normalizeWeather(
  payload: WeatherPayload,
  window?: Window,
  remembered?: ShareUnits,
): NormalizedWeather {
  const verdicts = weatherShareUnits(payload);
  const units = resolveShareUnits(verdicts, remembered);
  const { byHour, quarantined, ...stats } = keepHourlyRecords(payload, window, validate, (record) =>
    valuesOf(record, units),
  );
  const rows = [...byHour].map(([hour, record]) => toRow(record, new Date(hour), units));
  const unknown = SHARE_FIELDS.filter((field) => units[field] === undefined);
  return {
    rows,
    ...stats,
    quarantined:
      unknown.length > 0
        ? [...quarantined, ...sharesSetAside(payload, byHour, unknown, verdicts)]
        : quarantined,
  };
}

/** The start of every reason a share set aside for its unknown unit is quarantined with. */
export const SHARE_UNIT_UNKNOWN = SET_ASIDE_REASONS.shareUnitUnknown;

/** Why a field's unit is unknown, by its verdict. */
const SET_ASIDE_BECAUSE: Readonly<Record<'cannot-tell' | 'contradictory', string>> = {
  'cannot-tell':
    'every value of the field in the answer is 0 or 1, which reads as a fraction and as a ' +
    'percentage alike, and no earlier answer of this source taught its unit',
  contradictory:
    'the field has values above 1 (percentages) and strictly between 0 and 1 (fractions) ' +
    'in the same answer, so no one unit reads it',
};

/**
 * One entry per kept record that sent a value (other than 0) of a field whose unit is unknown,
 * naming those values only.
 */
function sharesSetAside(
  payload: WeatherPayload,
  byHour: ReadonlyMap<number, WeatherRecord>,
  unknown: readonly ShareField[],
  verdicts: ShareUnitVerdicts,
): QuarantinedRecord[] {
  const indexOf = new Map(payload.records.map((record, index) => [record, index]));
  const out: QuarantinedRecord[] = [];
  for (const [hour, record] of byHour) {
    const sent = unknown.filter((field) => {
      const value = shareOf(record, field);
      return value !== undefined && value !== 0;
    });
    if (sent.length === 0) continue;
    // A field sent with a value other than 0 is never `only-zeros`.
    const because = [...new Set(sent.map((f) => verdicts[f] as 'cannot-tell' | 'contradictory'))];
    out.push({
      recordIndex: indexOf.get(record) ?? -1,
      raw: record,
      hour: new Date(hour),
      reason: shareUnitUnknownReason(
        sent.map((f) => [f, record[f]]),
        because.map((v) => SET_ASIDE_BECAUSE[v]).join('; '),
      ),
    });
  }
  return out;
}

function shareOf(record: WeatherRecord, field: ShareField): number | undefined {
  const value = record[field];
  return typeof value === 'number' ? value : undefined;
}

/** The values a weather record lands as: two copies of an hour must agree on all of them. */
function valuesOf(record: WeatherRecord, units: ShareUnits): RecordValues {
  const { observedAt: _, stampedAtFetch: __, ...values } = toRow(record, record.at, units);
  return values;
}

function validate(record: WeatherRecord): string | undefined {
  for (const [field, min, max] of RANGES) {
    const value = record[field];
    if (typeof value === 'number' && !(value >= min && value <= max)) {
      return `${field} ${value} is outside the plausible SI range [${min}, ${max}]`;
    }
  }
  for (const field of SHARE_FIELDS) {
    const value = shareOf(record, field);
    // A value above 1 makes its field `percent` (weatherShareUnits), so 0–100 is the range.
    if (value !== undefined && fractionOf(value, 'percent') === undefined) {
      return `${field} ${value} is neither a fraction (0-1) nor a percentage (0-100)`;
    }
  }
  return undefined;
}

/** A share as a fraction: 0 is 0 in both units, so it lands even while the unit is unknown. */
function share(value: number | undefined, unit: ShareUnit | undefined): number | null {
  if (value === undefined) return null;
  if (value === 0) return 0;
  return unit === undefined ? null : (fractionOf(value, unit) ?? null);
}

function toRow(r: WeatherRecord, observedAt: Date, units: ShareUnits): WeatherRow {
  return {
    observedAt,
    temperatureC: r.temperature ?? null,
    apparentTemperatureC: r.apparentTemperature ?? null,
    dewPointC: r.dewPoint ?? null,
    humidityFraction: share(r.humidity, units.humidity),
    pressureHpa: r.pressure ?? null,
    windSpeedMs: r.windSpeed ?? null,
    windGustMs: r.windGust ?? null,
    windBearingDeg: r.windBearing ?? null,
    cloudCoverFraction: share(r.cloudCover, units.cloudCover),
    visibilityKm: r.visibility ?? null,
    uvIndex: r.uvIndex ?? null,
    ozoneDu: r.ozone ?? null,
    precipIntensityMmH: r.precipIntensity ?? null,
    precipProbabilityFraction: share(r.precipProbability, units.precipProbability),
    precipType: r.precipType ?? null,
    summary: r.summary ?? null,
    icon: mapWeatherIcon(r.icon),
    iconRaw: r.icon ?? null,
    ...(r.stampedAtFetch && { stampedAtFetch: true }),
  };
}
