import { endpointMatches, isHistoryEndpoint, SIMULATOR_ENDPOINTS } from '../simulator-endpoints.js';
import {
  FAULT_KINDS,
  isRecordFaultKind,
  MAX_FAULT_HOURS,
  type FaultKind,
  type FaultRule,
  type FaultScript,
  type FaultSettings,
} from './fault-settings.js';
import { recordFaultApplies } from './record-fault-applies.js';

/** A parsed fault spec and what was wrong with it (empty when valid). */
export interface ParsedFaultSpec {
  readonly settings: FaultSettings;
  readonly problems: readonly string[];
}

const ENTRY =
  /^([A-Za-z0-9/_*.-]+)\s*:\s*([a-z]+)\s*(?:=\s*(\d+))?\s*(?:@\s*(\d*\.?\d+)\s*(%?)|x\s*(\d+))$/;

/**
 * Parses the compact fault format of `ENVDATA_SIM_FAULTS` and the admin endpoint:
 *
 * ```text
 * spec      = entry *( ";" entry )          (newlines separate entries too)
 * entry     = selector ":" kind [ "=" N ] ( "@" rate | "x" count )  |  "seed=" N
 * selector  = all | endpoint id | endpoint path | pollen | weather | geocode | latest | history
 *           | forecast | pollen-history | … (see SIMULATOR_ENDPOINTS tags)
 * kind      = error | text | hang | reset | malformed | truncated | latency | nodata
 *           | short | empty | conflict | duplicate     (record faults: history endpoints only)
 *           | nul | nulvalue | long | wrongtype | badrisk | millis | blank
 *                                                  (hostile records; badrisk: pollen history only)
 * N         = HTTP status (error, text, malformed, truncated), milliseconds (latency) or
 *             hours 1–10000 (record faults but empty; default 1); hang, reset, nodata, empty
 *             take none
 * rate      = a probability 0–1, or a percentage with "%"   → a rule, every matching request
 * count     = a whole number                                 → a script, the next N requests
 * ```
 *
 * @example parseFaultSpec('history:error=503x3; all:latency=50@10%; weather:reset@0.01; seed=7')
 * @example parseFaultSpec('history:short=6@100%; weather-history:conflict x2; pollen-history:empty x1')
 */
export function parseFaultSpec(text: string): ParsedFaultSpec {
  const rules: FaultRule[] = [];
  const scripts: FaultScript[] = [];
  const problems: string[] = [];
  let seed: number | undefined;
  for (const raw of text.split(/[;\n]/)) {
    const entry = raw.trim();
    if (entry === '') continue;
    const seedMatch = /^seed\s*=\s*(\d+)$/.exec(entry);
    if (seedMatch) {
      seed = Number(seedMatch[1]);
      continue;
    }
    const m = ENTRY.exec(entry);
    if (!m) {
      problems.push(
        `"${entry}" is not SELECTOR:KIND[=N]@RATE or SELECTOR:KIND[=N]xCOUNT (e.g. history:error=503x3)`,
      );
      continue;
    }
    const [, endpoint = '', kindText = '', param, rateText, percent, countText] = m;
    const shape = checkFaultShape(
      endpoint,
      kindText,
      param === undefined ? undefined : Number(param),
    );
    if (typeof shape === 'string') {
      problems.push(`"${entry}": ${shape}`);
      continue;
    }
    if (countText !== undefined) {
      const count = Number(countText);
      if (count < 1) problems.push(`"${entry}": the count must be at least 1`);
      else scripts.push({ ...shape, count });
    } else {
      const rate = Number(rateText) / (percent === '%' ? 100 : 1);
      if (!(rate >= 0 && rate <= 1))
        problems.push(`"${entry}": the rate must be within 0–1 (or 0–100%)`);
      else rules.push({ ...shape, rate });
    }
  }
  return { settings: seed === undefined ? { rules, scripts } : { rules, scripts, seed }, problems };
}

/** A fault's selector, kind and parameter, checked. */
export interface CheckedFaultShape {
  readonly endpoint: string;
  readonly kind: FaultKind;
  readonly status?: number;
  readonly latencyMs?: number;
  readonly hours?: number;
}

/**
 * Checks a fault's selector, kind and parameter; returns the fault's shape or what is wrong.
 * Shared by the text format and the admin endpoint's JSON. `param` is the status, the latency
 * or the hours, as the kind takes.
 */
export function checkFaultShape(
  endpoint: string,
  kind: string,
  param: number | undefined,
): CheckedFaultShape | string {
  if (!SIMULATOR_ENDPOINTS.some((e) => endpointMatches(e, endpoint))) {
    return `selector "${endpoint}" names no endpoint (use all, an endpoint id or path, pollen, weather, geocode, latest, history, forecast, pollen-history, …)`;
  }
  if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
    return `unknown fault kind "${kind}" (one of ${FAULT_KINDS.join(', ')})`;
  }
  const faultKind = kind as FaultKind;
  if (isRecordFaultKind(faultKind)) {
    if (!SIMULATOR_ENDPOINTS.some((e) => endpointMatches(e, endpoint) && isHistoryEndpoint(e))) {
      return `${kind} applies to history endpoints only, and selector "${endpoint}" names none (use history, pollen-history, weather-history, an endpoint id or path)`;
    }
    if (
      !SIMULATOR_ENDPOINTS.some(
        (e) => endpointMatches(e, endpoint) && recordFaultApplies(e, faultKind),
      )
    ) {
      return faultKind === 'ambiguous'
        ? `ambiguous applies to weather history only, and selector "${endpoint}" names none (use weather-history, weather, history)`
        : `${kind} applies to pollen history endpoints only, and selector "${endpoint}" names none (use history, pollen-history, an endpoint id or path)`;
    }
    if (param === undefined) return { endpoint, kind: faultKind };
    if (faultKind === 'empty' || faultKind === 'ambiguous') {
      return `${kind} takes no parameter (e.g. history:${kind} x1)`;
    }
    if (!(Number.isInteger(param) && param >= 1 && param <= MAX_FAULT_HOURS)) {
      return `${kind}=N counts hours: a whole number 1–${MAX_FAULT_HOURS} (e.g. history:${kind}=6x1)`;
    }
    return { endpoint, kind: faultKind, hours: param };
  }
  if (param === undefined) return { endpoint, kind: faultKind };
  if (faultKind === 'latency') {
    if (!(param >= 0 && param <= 600_000)) return 'latency must be 0–600000 ms';
    return { endpoint, kind: faultKind, latencyMs: param };
  }
  if (faultKind === 'hang' || faultKind === 'reset' || faultKind === 'nodata') {
    return `${kind} takes no parameter`;
  }
  if (!(Number.isInteger(param) && param >= 200 && param <= 599)) {
    return 'the status must be an HTTP status 200–599';
  }
  return { endpoint, kind: faultKind, status: param };
}
