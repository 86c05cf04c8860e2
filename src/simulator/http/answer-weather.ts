import { historyHours, WEATHER_FORECAST_HOURS, WEATHER_HISTORY_START_S } from '../data/coverage.js';
import { generateWeatherHour, type WeatherHour } from '../data/generate-weather-hour.js';
import { isRevisedHour } from '../data/is-revised-hour.js';
import { reviseWeatherHour } from '../data/revise-weather-hour.js';
import { applyRecordFault } from '../faults/apply-record-fault.js';
import { ambiguousWeatherHour } from '../faults/ambiguous-weather-hour.js';
import { conflictingWeatherHour } from '../faults/conflicting-weather-hour.js';
import { withHostileFault } from '../faults/make-records-hostile.js';
import { HOUR_MS, HOUR_S } from '../data/time-math.js';
import { weatherClimateOf } from '../data/weather-climate.js';
import { applyWeatherDrift } from '../render/drift-variant.js';
import { DATA_NOT_AVAILABLE_BODY } from '../render/response-text.js';
import {
  renderWeatherForecastBody,
  renderWeatherHistoryBody,
  renderWeatherLatestBody,
  renderWeatherRecord,
} from '../render/render-weather.js';
import type { Answer, RequestContext } from './answer.js';
import { readCoordinates, readHistoryRange, readUnits, rejectParameter } from './read-query.js';

/** Answers the three weather endpoints (latest, history, forecast; by coordinates). */
export function answerWeather(ctx: RequestContext): Answer {
  const { params, endpoint, shapes } = ctx;
  const drift = ctx.drift ?? null;
  rejectParameter(params, 'speciesRisk', 'pollen');
  const units = readUnits(params);
  const { lat, lng } = readCoordinates(params);
  const range = readHistoryRange(ctx);
  const climate = weatherClimateOf(lat, lng);
  const nowHour = Math.floor(ctx.nowMs / HOUR_MS);

  if (endpoint.operation === 'weather-latest') {
    // The latest reading is stamped with the minute it was read (with `offHourStamps`, the
    // second), its values those of the hour.
    const stampMs = shapes.offHourStamps ? 1_000 : 60_000;
    const hour = {
      ...generateWeatherHour(climate, nowHour),
      time: (Math.floor(ctx.nowMs / stampMs) * stampMs) / 1_000,
    };
    const record = applyWeatherDrift(renderWeatherRecord(hour, units, shapes, climate), drift);
    return { status: 200, body: renderWeatherLatestBody(record, shapes) };
  }
  if (endpoint.operation === 'weather-forecast') {
    const records: string[] = new Array<string>(WEATHER_FORECAST_HOURS);
    for (let i = 0; i < WEATHER_FORECAST_HOURS; i++) {
      records[i] = applyWeatherDrift(
        renderWeatherRecord(generateWeatherHour(climate, nowHour + i, nowHour), units, shapes),
        drift,
      );
    }
    return {
      status: 200,
      body: renderWeatherForecastBody(climate.lat, climate.lng, records, shapes),
    };
  }
  const span = historyHours(range!.fromS, range!.toS, WEATHER_HISTORY_START_S, ctx.nowMs);
  if (span === undefined) return { status: 200, body: DATA_NOT_AVAILABLE_BODY };
  const series = `weather:${climate.id}`;
  const revise = ctx.revise ?? null;
  let hours: WeatherHour[] = [];
  for (let hour = span.first; hour <= span.last; hour++) {
    const generated = generateWeatherHour(climate, hour);
    const revised =
      revise !== null &&
      ctx.served?.has(series, hour) === true &&
      isRevisedHour(climate.seed, hour, revise);
    hours.push(revised ? reviseWeatherHour(generated) : generated);
  }
  if (ctx.recordFault !== undefined) {
    hours = applyRecordFault(hours, ctx.recordFault, conflictingWeatherHour, (hour) =>
      ambiguousWeatherHour(hour, shapes),
    );
  }
  const records = withHostileFault(
    hours.map((hour) => applyWeatherDrift(renderWeatherRecord(hour, units, shapes), drift)),
    ctx.recordFault,
    'weather',
  );
  return {
    status: 200,
    body: renderWeatherHistoryBody(climate.lat, climate.lng, records, shapes),
    served: { series, hours: hours.map((hour) => hour.time / HOUR_S) },
  };
}
