/**
 * The failures the simulator can inject, per endpoint:
 *
 * - `error`: a JSON error `{"message": …}` with a 5xx status (default 500).
 * - `text`: a plain-text error body (default status 502), as gateways send.
 * - `hang`: no answer at all; the request is held until the client gives up or the simulator
 *   closes.
 * - `reset`: the TCP connection is reset without an answer.
 * - `malformed`: the normal status with a body that is not valid JSON.
 * - `truncated`: status 206 and the normal body cut in the middle (a quota trim).
 * - `latency`: the normal answer, `latencyMs` later (default 200 ms); adds to other faults.
 */
export const FAULT_KINDS = [
  'error',
  'text',
  'hang',
  'reset',
  'malformed',
  'truncated',
  'latency',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

interface FaultShape {
  /** Endpoint selector: `all`, an endpoint id or path, or a group (`pollen`, `history`, `pollen-history`). */
  readonly endpoint: string;
  readonly kind: FaultKind;
  /** Status for `error`, `text`, `malformed`, `truncated`. */
  readonly status?: number;
  /** Delay for `latency`. */
  readonly latencyMs?: number;
}

/** A fault injected with a probability on every matching request. */
export interface FaultRule extends FaultShape {
  /** Probability per request, 0–1, drawn from a seeded sequence (reproducible). */
  readonly rate: number;
}

/** A fault injected on the next `count` matching requests, then spent. */
export interface FaultScript extends FaultShape {
  readonly count: number;
}

/** Every fault knob at once, as options, env (`ENVDATA_SIM_FAULTS`) or the admin endpoint set them. */
export interface FaultSettings {
  readonly rules?: readonly FaultRule[];
  readonly scripts?: readonly FaultScript[];
  /** Seed of the rate sequence. Default 1. */
  readonly seed?: number;
}

/** Default status of each status-bearing fault kind. */
export const DEFAULT_FAULT_STATUS: Readonly<Record<FaultKind, number>> = {
  error: 500,
  text: 502,
  hang: 0,
  reset: 0,
  malformed: 200,
  truncated: 206,
  latency: 0,
};

/** Default delay of a `latency` fault. */
export const DEFAULT_LATENCY_MS = 200;
