import {
  STATUS_CODES,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import type { RecordFault } from '../faults/apply-record-fault.js';
import type { FaultDecision } from '../faults/fault-injector.js';
import { isRecordFaultKind } from '../faults/fault-settings.js';
import { DATA_NOT_AVAILABLE_BODY, errorBody } from '../render/response-text.js';
import { ENDPOINT_BY_PATH, type SimulatorEndpoint } from '../simulator-endpoints.js';
import type { SimulatorState } from '../simulator-state.js';
import { maskKey } from '../stats/mask-key.js';
import type { LoggedAnswer } from '../stats/request-log.js';
import { answerRequest } from './answer-request.js';
import { handleAdmin } from './handle-admin.js';
import { sendAnswer } from './send-answer.js';

/**
 * The simulator's request listener: routes `/__admin/…` to the admin handler and the 13
 * endpoints through fault injection to their answers, counting every request.
 */
export function createRequestListener(state: SimulatorState): RequestListener {
  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (path.startsWith('/__admin/') && state.admin) {
      handleAdmin(state, req, res, path);
      return;
    }
    const key = apiKeyOf(req);
    const endpoint = ENDPOINT_BY_PATH.get(path);
    if (endpoint === undefined) {
      state.stats.record('unknown', maskKey(key), 404);
      sendAnswer(res, { status: 404, body: errorBody(`No endpoint at ${path}`) });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      state.stats.record(endpoint.id, maskKey(key), 405);
      sendAnswer(res, {
        status: 405,
        body: errorBody('Method Not Allowed'),
        headers: { Allow: 'GET' },
      });
      return;
    }
    const query = q === -1 ? '' : url.slice(q + 1);
    const logged = state.requests.arrive(endpoint.id, query, req.socket.remoteAddress);
    const fault = state.faults.decide(endpoint);
    if (fault.latencyMs === 0) {
      serve(state, req, res, endpoint, key, query, fault, logged);
      return;
    }
    state.stats.recordFault('latency');
    const timer = setTimeout(() => {
      state.timers.delete(timer);
      if (!res.destroyed) serve(state, req, res, endpoint, key, query, fault, logged);
    }, fault.latencyMs);
    state.timers.add(timer);
  };
}

function serve(
  state: SimulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: SimulatorEndpoint,
  key: string | undefined,
  query: string,
  fault: FaultDecision,
  logged: { answered(answer: LoggedAnswer): void },
): void {
  const masked = maskKey(key);
  const record = (answer: LoggedAnswer) => {
    state.stats.record(endpoint.id, masked, answer);
    logged.answered(answer);
  };
  if (fault.kind !== undefined) state.stats.recordFault(fault.kind);
  switch (fault.kind) {
    case 'hang':
      record('hang');
      state.held.add(res);
      res.on('close', () => state.held.delete(res));
      return;
    case 'reset':
      record('reset');
      req.socket.resetAndDestroy();
      return;
    case 'error':
      record(fault.status);
      sendAnswer(res, {
        status: fault.status,
        body: errorBody(STATUS_CODES[fault.status] ?? 'Error'),
        headers: retryAfterOf(fault),
      });
      return;
    case 'text':
      record(fault.status);
      sendAnswer(res, {
        status: fault.status,
        body: `${fault.status} ${STATUS_CODES[fault.status] ?? 'Error'}`,
        contentType: 'text/plain; charset=utf-8',
        headers: retryAfterOf(fault),
      });
      return;
    case 'nodata':
      record(200);
      sendAnswer(res, { status: 200, body: DATA_NOT_AVAILABLE_BODY });
      return;
    default:
      break;
  }
  // Record faults change the records before rendering; the answer is then an ordinary one.
  const recordFault: RecordFault | undefined =
    fault.kind !== undefined && isRecordFaultKind(fault.kind)
      ? { kind: fault.kind, hours: fault.hours }
      : undefined;
  const answer = answerRequest(state, endpoint, key, query, recordFault);
  if (fault.kind === 'malformed') {
    // Drop the first quote: the body still looks like JSON but no parser accepts it.
    const body = answer.body.replace('"', '');
    record(fault.status);
    sendAnswer(res, { ...answer, status: fault.status, body });
  } else if (fault.kind === 'truncated') {
    const body = answer.body.slice(0, Math.max(1, Math.floor(answer.body.length / 2)));
    record(fault.status);
    sendAnswer(res, { ...answer, status: fault.status, body });
  } else {
    record(answer.status);
    sendAnswer(res, answer);
    // Hours count as answered once a whole answer sent them (`ReviseOption`).
    if (answer.served !== undefined && answer.status === 200) {
      state.served.add(answer.served.series, answer.served.hours);
    }
  }
}

function apiKeyOf(req: IncomingMessage): string | undefined {
  const header = req.headers['x-api-key'];
  return Array.isArray(header) ? header[0] : header;
}

/** The `Retry-After` header a fault's answer carries, if any. */
function retryAfterOf(fault: FaultDecision): Record<string, string> | undefined {
  return fault.retryAfter === undefined ? undefined : { 'Retry-After': fault.retryAfter };
}
