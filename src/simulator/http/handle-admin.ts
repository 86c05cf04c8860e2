import type { IncomingMessage, ServerResponse } from 'node:http';
import { coerceError } from '../../errors/coerce-error.js';
import { EnvdataError, isEnvdataError } from '../../errors/envdata-error.js';
import { readFaultSettings } from '../faults/read-fault-settings.js';
import { readRuntimeOptions } from '../read-runtime-options.js';
import { errorBody } from '../render/response-text.js';
import type { SimulatorState } from '../simulator-state.js';
import { maskKey } from '../stats/mask-key.js';
import { ADMIN_TOKEN_HEADER, isAdminAuthorized } from './authorize-admin.js';
import { sendAnswer } from './send-answer.js';

const MAX_BODY_BYTES = 1_000_000;

/**
 * The admin endpoint, for tests, benchmarks and the demo to drive the simulator over HTTP:
 *
 * | request | effect | answer |
 * |---|---|---|
 * | `GET /__admin/stats` | | `SimulatorStats` (with each key's quota use and next resets) |
 * | `GET /__admin/requests` | | `LoggedRequest[]`, oldest first (`requestLog` option) |
 * | `POST /__admin/reset` | zero stats, request log, rate windows, quotas and answered hours (`revise`) | `{"ok": true}` |
 * | `GET /__admin/faults` | | `FaultState` (scripts with `remaining`) |
 * | `POST /__admin/faults` | replace faults: `{"spec"?, "rules"?, "scripts"?, "seed"?}` | `FaultState` |
 * | `POST /__admin/scripts` | append scripts: `{"spec"?, "scripts"?}` | `FaultState` |
 * | `DELETE /__admin/faults` | clear every fault | `FaultState` |
 * | `GET /__admin/options` | | runtime options, keys masked |
 * | `POST /__admin/options` | change runtime options (`legacyShapes`, `rateLimit`, `revise`, …) | same |
 *
 * A body may also be the bare fault spec text. Bad input answers 400 `{"message": …}`. With an
 * admin token (`ENVDATA_SIM_ADMIN_TOKEN`), a request without it answers 401 and changes nothing.
 */
export function handleAdmin(
  state: SimulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): void {
  state.stats.recordAdmin();
  if (!isAdminAuthorized(req, state.adminToken)) {
    req.resume();
    sendAnswer(res, {
      status: 401,
      body: errorBody(
        `The admin endpoint needs the simulator's admin token (ENVDATA_SIM_ADMIN_TOKEN): send it as ${ADMIN_TOKEN_HEADER} or Authorization: Bearer`,
      ),
      headers: { 'WWW-Authenticate': 'Bearer realm="envdata simulator admin"' },
    });
    return;
  }
  const route = `${req.method ?? 'GET'} ${path}`;
  if (req.method === 'GET' || req.method === 'DELETE') {
    req.resume();
    respond(res, () => act(state, route, undefined));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    respond(res, () => {
      if (size > MAX_BODY_BYTES) throw badRequest('body larger than 1 MB');
      return act(state, route, parseBody(Buffer.concat(chunks).toString('utf8')));
    });
  });
}

function act(state: SimulatorState, route: string, body: unknown): unknown {
  switch (route) {
    case 'GET /__admin/stats':
      return state.statsSnapshot();
    case 'GET /__admin/requests':
      return state.requests.entries();
    case 'POST /__admin/reset':
      state.stats.reset();
      state.requests.clear();
      state.gate.reset();
      state.served.clear();
      return { ok: true };
    case 'GET /__admin/faults':
      return state.faults.state();
    case 'POST /__admin/faults':
      state.faults.set(readFaultSettings(body ?? {}));
      return state.faults.state();
    case 'POST /__admin/scripts':
      state.faults.addScripts(readFaultSettings(body ?? {}).scripts ?? []);
      return state.faults.state();
    case 'DELETE /__admin/faults':
      state.faults.clear();
      return state.faults.state();
    case 'GET /__admin/options':
      return describeOptions(state);
    case 'POST /__admin/options':
      state.update(readRuntimeOptions(body ?? {}));
      return describeOptions(state);
    default:
      throw new EnvdataError('NOT_FOUND', `No admin route ${route}`);
  }
}

/** The runtime options with keys masked, for answers and logs. */
function describeOptions(state: SimulatorState): unknown {
  const { keys, ...rest } = state.options;
  return {
    ...rest,
    keys: Object.fromEntries(
      Object.entries(keys).map(([key, products]) => [maskKey(key), products]),
    ),
  };
}

function parseBody(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (!trimmed.startsWith('{')) return trimmed;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    throw badRequest('body is not valid JSON');
  }
}

function badRequest(message: string): EnvdataError {
  return new EnvdataError('VALIDATION_FAILED', message);
}

function respond(res: ServerResponse, compute: () => unknown): void {
  try {
    sendAnswer(res, { status: 200, body: JSON.stringify(compute()) });
  } catch (thrown) {
    const error = coerceError(thrown);
    const code = isEnvdataError(error) ? error.code : undefined;
    const status = code === 'VALIDATION_FAILED' ? 400 : code === 'NOT_FOUND' ? 404 : 500;
    sendAnswer(res, { status, body: errorBody(error.message) });
  }
}
