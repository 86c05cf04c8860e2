import { isHistoryEndpoint, type SimulatorEndpoint } from '../simulator-endpoints.js';
import {
  POLLEN_ONLY_RECORD_KINDS,
  WEATHER_ONLY_RECORD_KINDS,
  type RecordFaultKind,
} from './fault-settings.js';

/**
 * Whether a record fault can apply to an endpoint: a history endpoint, and a pollen one for the
 * kinds only pollen records can carry (`badrisk`), a weather one for those only weather records
 * can (`ambiguous`).
 */
export function recordFaultApplies(endpoint: SimulatorEndpoint, kind: RecordFaultKind): boolean {
  if (!isHistoryEndpoint(endpoint)) return false;
  if (WEATHER_ONLY_RECORD_KINDS.includes(kind)) return endpoint.operation === 'weather-history';
  return !POLLEN_ONLY_RECORD_KINDS.includes(kind) || endpoint.operation === 'pollen-history';
}
