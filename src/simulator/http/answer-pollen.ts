import { EnvdataError } from '../../errors/envdata-error.js';
import { geocodePlace } from '../../geo/geocode-place.js';
import {
  historyHours,
  POLLEN_FORECAST_120_STEP_HOURS,
  POLLEN_FORECAST_120_STEPS,
  POLLEN_FORECAST_HOURS,
  POLLEN_HISTORY_START_S,
} from '../data/coverage.js';
import { generatePollenHour } from '../data/generate-pollen-hour.js';
import { isRevisedHour } from '../data/is-revised-hour.js';
import { revisePollenHour } from '../data/revise-pollen-hour.js';
import { applyRecordFault } from '../faults/apply-record-fault.js';
import { conflictingPollenHour } from '../faults/conflicting-pollen-hour.js';
import { withHostileFault } from '../faults/make-records-hostile.js';
import { pollenSiteOf } from '../data/pollen-site.js';
import { HOUR_MS } from '../data/time-math.js';
import { unit3 } from '../data/deterministic-hash.js';
import { renderPollenBody, renderPollenRecord, type PollenStamp } from '../render/render-pollen.js';
import { DATA_NOT_AVAILABLE_BODY } from '../render/response-text.js';
import type { Answer, RequestContext } from './answer.js';
import {
  readCoordinates,
  readHistoryRange,
  readPlace,
  readSpeciesRisk,
  rejectParameter,
} from './read-query.js';

/** Answers the eight pollen endpoints (latest, history, forecast, 120 h forecast; by coordinates or place). */
export function answerPollen(ctx: RequestContext): Answer {
  const { params, endpoint, shapes } = ctx;
  rejectParameter(params, 'units', 'weather');
  const speciesRisk = readSpeciesRisk(params);
  const range = readHistoryRange(ctx);

  const { lat, lng } =
    endpoint.by === 'place' ? locatePlace(readPlace(params)) : readCoordinates(params);
  const site = pollenSiteOf(lat, lng);
  if (!site.covered) return { status: 200, body: DATA_NOT_AVAILABLE_BODY };
  const nowHour = Math.floor(ctx.nowMs / HOUR_MS);

  let hours: number[];
  let stamp: PollenStamp;
  switch (endpoint.operation) {
    case 'pollen-history': {
      const span = historyHours(range!.fromS, range!.toS, POLLEN_HISTORY_START_S, ctx.nowMs);
      if (span === undefined) return { status: 200, body: DATA_NOT_AVAILABLE_BODY };
      hours = sequence(span.first, span.last - span.first + 1, 1);
      stamp = 'history';
      break;
    }
    case 'pollen-forecast':
      hours = sequence(nowHour, POLLEN_FORECAST_HOURS, 1);
      stamp = 'forecast';
      break;
    case 'pollen-forecast-120hr': {
      const start = nowHour - (nowHour % POLLEN_FORECAST_120_STEP_HOURS);
      hours = sequence(start, POLLEN_FORECAST_120_STEPS, POLLEN_FORECAST_120_STEP_HOURS);
      stamp = 'forecast-120hr';
      break;
    }
    default:
      hours = [nowHour];
      stamp = 'latest';
  }
  const forecast = stamp === 'forecast' || stamp === 'forecast-120hr';
  const series = `pollen:${site.id}`;
  const revise = stamp === 'history' ? (ctx.revise ?? null) : null;
  let generated = hours.map((hour) => {
    // Forecasts miss by more the further ahead they look.
    const scale = forecast && hour > nowHour ? forecastScale(site.seed, nowHour, hour) : 1;
    const pollen = generatePollenHour(site, hour, scale);
    const revised =
      revise !== null &&
      ctx.served?.has(series, hour) === true &&
      isRevisedHour(site.seed, hour, revise);
    return revised ? revisePollenHour(site, pollen) : pollen;
  });
  if (stamp === 'history' && ctx.recordFault !== undefined) {
    generated = applyRecordFault(generated, ctx.recordFault, conflictingPollenHour);
  }
  const requestS = Math.floor(ctx.nowMs / 1000);
  let records = generated.map((hour) =>
    renderPollenRecord(site, hour, stamp, shapes, speciesRisk, requestS),
  );
  if (stamp !== 'history') {
    return { status: 200, body: renderPollenBody(site.lat, site.lng, records, shapes) };
  }
  records = withHostileFault(records, ctx.recordFault, 'pollen');
  return {
    status: 200,
    body: renderPollenBody(site.lat, site.lng, records, shapes),
    served: { series, hours: generated.map((hour) => hour.epochHour) },
  };
}

function locatePlace(place: string): { lat: number; lng: number } {
  const [match] = geocodePlace(place, { limit: 1 });
  if (match === undefined) {
    throw new EnvdataError('NOT_FOUND', `No place found for "${place}"`);
  }
  return { lat: match.lat, lng: match.lng };
}

function forecastScale(seed: number, issuedHour: number, hour: number): number {
  const error = unit3(seed, issuedHour, hour) - 0.5;
  return Math.max(0.2, 1 + error * 0.08 * Math.sqrt(hour - issuedHour));
}

function sequence(start: number, count: number, step: number): number[] {
  const out = new Array<number>(count);
  for (let i = 0; i < count; i++) out[i] = start + i * step;
  return out;
}
