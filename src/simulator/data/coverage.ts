import { HOUR_MS, HOUR_S } from './time-math.js';

/** First hour of pollen history: 2016-01-01 00:00 UTC. */
export const POLLEN_HISTORY_START_S = Date.UTC(2016, 0, 1) / 1000;
/** First hour of weather history: 1990-01-01 00:00 UTC. */
export const WEATHER_HISTORY_START_S = Date.UTC(1990, 0, 1) / 1000;
/** Legacy pollen forecast: hourly records from the current hour. */
export const POLLEN_FORECAST_HOURS = 48;
/** 120 h pollen forecast: 3-hourly records from the current 3-hour slot. */
export const POLLEN_FORECAST_120_STEPS = 40;
export const POLLEN_FORECAST_120_STEP_HOURS = 3;
/** Weather forecast: hourly records from the current hour. */
export const WEATHER_FORECAST_HOURS = 72;

/**
 * The epoch hours of the hourly records a history request `[fromS, toS)` gets: on the hour, not
 * before `startS`, and none later than the last complete hour before `nowMs`. `undefined` when
 * there are none ("Data not available!").
 */
export function historyHours(
  fromS: number,
  toS: number,
  startS: number,
  nowMs: number,
): { first: number; last: number } | undefined {
  const first = Math.ceil(Math.max(fromS, startS) / HOUR_S);
  const lastComplete = Math.floor(nowMs / HOUR_MS) - 1;
  const last = Math.min(Math.ceil(toS / HOUR_S) - 1, lastComplete);
  return first > last ? undefined : { first, last };
}
