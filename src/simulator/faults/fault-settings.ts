/**
 * Record faults that make records hostile rather than change which hours an answer carries:
 * each of the first `hours` records of the answer is rewritten (see `FAULT_KINDS`).
 */
export const HOSTILE_RECORD_KINDS = [
  'nul',
  'nulvalue',
  'long',
  'wrongtype',
  'badrisk',
  'millis',
  'blank',
] as const;
export type HostileRecordKind = (typeof HOSTILE_RECORD_KINDS)[number];

/** Whether a record fault kind is one of `HOSTILE_RECORD_KINDS`. */
export function isHostileRecordKind(kind: string): kind is HostileRecordKind {
  return (HOSTILE_RECORD_KINDS as readonly string[]).includes(kind);
}

/** Record fault kinds that apply to pollen history only (weather records have no risk). */
export const POLLEN_ONLY_RECORD_KINDS: readonly RecordFaultKind[] = ['badrisk'];

/** Record fault kinds that apply to weather history only (only weather records carry shares). */
export const WEATHER_ONLY_RECORD_KINDS: readonly RecordFaultKind[] = ['ambiguous'];

/**
 * The fault kinds that change which records a 200 success answer carries (see `FAULT_KINDS`).
 * They apply to history endpoints only.
 */
export const RECORD_FAULT_KINDS = [
  'short',
  'empty',
  'conflict',
  'duplicate',
  'ambiguous',
  ...HOSTILE_RECORD_KINDS,
] as const;
export type RecordFaultKind = (typeof RECORD_FAULT_KINDS)[number];

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
 * - `nodata`: HTTP 200 with the service's "Data not available!" answer, whatever the service
 *   holds: a transient "no data" (`history:nodata x3`, the next three requests; or a rate while it
 *   is set), after which the real data is answered again. Takes no parameter.
 *
 * `error` and `text` answers carry `retryAfter` as a `Retry-After` header when it is set.
 *
 * Record faults model an upstream that answers 200 "success" but incompletely or inconsistently.
 * They change the list of hourly records before it is rendered, so every response shape variant
 * carries them, and the answer stays an ordinary 200 (counted as such in the stats, and under its
 * kind in `faults`). `hours` (the `=N` of the spec, a whole number 1–10000, default 1) counts
 * hours:
 *
 * - `short`: the last `hours` hours of the answer's records are left out
 *   (`history:short=6x1` on a 48-hour window answers its first 42 hours). With `hours` at least
 *   the window's length, the answer is a success with no records.
 * - `empty`: the success envelope with zero records (pollen `data: []`, weather
 *   `data.history: []`); not the "Data not available!" answer. Takes no `hours`.
 * - `conflict`: each of the first `hours` records is repeated at the end of the answer with
 *   different values: pollen every `Count` +7, every species count and `Others` +1 (risks follow
 *   the counts); weather `temperature` +3.5 °C (+6.3 °F in imperial units) and `humidity` moved
 *   by 0.2 (20 points as a percentage) towards the middle of its range. Stamps and every other
 *   field are those of the original hour, so each copy is a valid record.
 * - `duplicate`: each of the first `hours` records is repeated, identical, at the end.
 * - `ambiguous`: every record's `humidity` and `cloudCover` sent as `1` and `precipProbability`
 *   as `0`, each in its field's unit (1 % where the shapes write the field as a percentage,
 *   else 100 %): an answer whose shares read as fractions and as percentages alike. Weather history only (a selector
 *   that names no `weather-history` is refused); takes no `hours`.
 *
 * Hostile record faults rewrite each of the first `hours` records of the answer (its other
 * records are as usual), as a service that sends what its contract does not allow:
 *
 * - `nul`: a NUL (U+0000) in a string that would be stored: pollen, the first tree species' name
 *   (a tree species `Oak` is added to a record without species); weather, `summary`.
 * - `nulvalue`: a NUL in a value the parser refuses: pollen `Risk.tree_pollen` `"Lo\u0000w"`;
 *   weather `temperature` `"2\u00001"`.
 * - `long`: a 9,000-character string: pollen, the first tree species' name (too long for a key);
 *   weather, `summary` (storable as sent).
 * - `wrongtype`: a value of the wrong type: pollen `Count.tree_pollen` `[8]`; weather
 *   `temperature` `true`.
 * - `badrisk`: pollen only, `Risk.tree_pollen` `"Extreme"` (not one of the four levels).
 * - `millis`: the stamp in epoch milliseconds (`time` × 1000; an ISO `timestamp` becomes such a
 *   `time`).
 * - `blank`: an empty record, `{}`.
 *
 * Record faults apply to the history endpoints only (`pollen-history-by-lat-lng`,
 * `pollen-history-by-place`, `weather-history`): a selector that names none of them is refused
 * when the faults are set, and a broader selector (`all`, `pollen`) matches only its history
 * endpoints, so a script is not spent on other requests (`badrisk`: its pollen history
 * endpoints). They leave answers that are not a success with records as they are ("Data not
 * available!", 4xx).
 */
export const FAULT_KINDS = [
  'error',
  'text',
  'hang',
  'reset',
  'malformed',
  'truncated',
  'latency',
  'nodata',
  ...RECORD_FAULT_KINDS,
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Whether a kind is one of `RECORD_FAULT_KINDS`. */
export function isRecordFaultKind(kind: string): kind is RecordFaultKind {
  return (RECORD_FAULT_KINDS as readonly string[]).includes(kind);
}

interface FaultShape {
  /** Endpoint selector: `all`, an endpoint id or path, or a group (`pollen`, `history`, `pollen-history`). */
  readonly endpoint: string;
  readonly kind: FaultKind;
  /** Status for `error`, `text`, `malformed`, `truncated`. */
  readonly status?: number;
  /** Delay for `latency`. */
  readonly latencyMs?: number;
  /** Hours (records) for record faults but `empty` (1–10000, default 1). */
  readonly hours?: number;
  /**
   * A `Retry-After` header sent as it is with an `error` or `text` answer (a 5xx asking for a
   * wait, or a hostile one: `999999999`, a far-future HTTP-date). Settings only (options, the
   * admin endpoint's JSON); the compact text has no syntax for it.
   */
  readonly retryAfter?: string;
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

/** Default status of each status-bearing fault kind (record faults answer 200). */
export const DEFAULT_FAULT_STATUS: Readonly<Record<FaultKind, number>> = {
  error: 500,
  text: 502,
  hang: 0,
  reset: 0,
  malformed: 200,
  truncated: 206,
  latency: 0,
  nodata: 200,
  short: 200,
  empty: 200,
  conflict: 200,
  duplicate: 200,
  nul: 200,
  nulvalue: 200,
  long: 200,
  wrongtype: 200,
  badrisk: 200,
  millis: 200,
  blank: 200,
  ambiguous: 200,
};

/** Default delay of a `latency` fault. */
export const DEFAULT_LATENCY_MS = 200;

/** Default hours of `short`, `conflict` and `duplicate`. */
export const DEFAULT_FAULT_HOURS = 1;

/** Most hours a record fault may name. */
export const MAX_FAULT_HOURS = 10_000;
