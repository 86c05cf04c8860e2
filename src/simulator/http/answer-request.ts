import { isEnvdataError } from '../../errors/envdata-error.js';
import type { RecordFault } from '../faults/apply-record-fault.js';
import { errorBody } from '../render/response-text.js';
import type { SimulatorEndpoint } from '../simulator-endpoints.js';
import type { SimulatorState } from '../simulator-state.js';
import type { Answer, RequestContext } from './answer.js';
import { answerGeocode } from './answer-geocode.js';
import { answerPollen } from './answer-pollen.js';
import { answerWeather } from './answer-weather.js';

/**
 * The answer the service gives one request, faults aside: key, entitlement, rate limit and
 * quota first (401, 403, 429/422), then the query (400, 404), then the data. A `recordFault`
 * changes the records of a history answer before they are rendered.
 */
export function answerRequest(
  state: SimulatorState,
  endpoint: SimulatorEndpoint,
  key: string | undefined,
  query: string,
  recordFault?: RecordFault,
): Answer {
  const nowMs = state.nowMs();
  const verdict = state.gate.check(key, endpoint.product, nowMs);
  if (!verdict.allowed) {
    return {
      status: verdict.status,
      body: errorBody(verdict.message),
      headers: verdict.retryAfter === undefined ? undefined : { 'Retry-After': verdict.retryAfter },
    };
  }
  const ctx: RequestContext = {
    endpoint,
    params: new URLSearchParams(query),
    shapes: state.shapes,
    drift: state.options.drift,
    nowMs,
    maxRangeHours: state.options.maxRangeHours,
    recordFault,
    revise: state.options.revise,
    served: state.served,
  };
  try {
    switch (endpoint.product) {
      case 'pollen':
        return answerPollen(ctx);
      case 'weather':
        return answerWeather(ctx);
      case 'geocode':
        return answerGeocode(ctx);
    }
  } catch (error) {
    if (isEnvdataError(error) && error.code === 'INVALID_QUERY') {
      return { status: 400, body: errorBody(error.message) };
    }
    if (isEnvdataError(error) && error.code === 'NOT_FOUND') {
      return { status: 404, body: errorBody(error.message) };
    }
    state.logger?.error({ err: error, endpoint: endpoint.id }, 'simulator failed to answer');
    return { status: 500, body: errorBody('Internal Server Error') };
  }
}
