import { endpointMatches, type SimulatorEndpoint } from '../simulator-endpoints.js';
import { unit3 } from '../data/deterministic-hash.js';
import {
  DEFAULT_FAULT_HOURS,
  DEFAULT_FAULT_STATUS,
  DEFAULT_LATENCY_MS,
  isRecordFaultKind,
  type FaultKind,
  type FaultRule,
  type FaultScript,
  type FaultSettings,
} from './fault-settings.js';
import { recordFaultApplies } from './record-fault-applies.js';

/** The fault to inject into one request (none when `kind` is undefined), plus added latency. */
export interface FaultDecision {
  readonly kind: Exclude<FaultKind, 'latency'> | undefined;
  /** Status for status-bearing kinds; 200 for record faults. */
  readonly status: number;
  readonly latencyMs: number;
  /** Hours for record faults (`short`, `conflict`, `duplicate`, hostile ones); 0 for other kinds. */
  readonly hours: number;
  /** The `Retry-After` an `error` or `text` answer carries, when the fault sets one. */
  readonly retryAfter?: string;
}

/** The faults in force, scripts with how many requests each still has to fail. */
export interface FaultState {
  readonly rules: readonly FaultRule[];
  readonly scripts: readonly (FaultScript & { readonly remaining: number })[];
  readonly seed: number;
}

const NO_FAULT: FaultDecision = Object.freeze({
  kind: undefined,
  status: 0,
  latencyMs: 0,
  hours: 0,
});

/**
 * Decides, request by request, which fault to inject. Scripts come first, in the order they were
 * added: the first unspent one that matches the endpoint is used once. Then every matching rule
 * draws from its own seeded sequence (`seed`, rule position, how many requests it has seen), so
 * the same requests in the same order meet the same faults in every run. Latency adds up; of
 * the other kinds the first one drawn wins. Record faults (`short`, `empty`, `conflict`,
 * `duplicate`, the hostile ones) match only the history endpoints among those their selector
 * names (`badrisk` only the pollen ones): other requests neither spend their scripts nor draw
 * from their rules.
 */
export class FaultInjector {
  #rules: readonly FaultRule[] = [];
  #ruleDraws: number[] = [];
  #scripts: { script: FaultScript; remaining: number }[] = [];
  #seed = 1;

  constructor(settings: FaultSettings = {}) {
    this.set(settings);
  }

  /** Replaces every rule and script; restarts the rate sequences. */
  set(settings: FaultSettings): void {
    this.#rules = [...(settings.rules ?? [])];
    this.#ruleDraws = this.#rules.map(() => 0);
    this.#scripts = [];
    this.#seed = settings.seed ?? 1;
    this.addScripts(settings.scripts ?? []);
  }

  /** Appends one-shot scripts after those still pending. */
  addScripts(scripts: readonly FaultScript[]): void {
    for (const script of scripts) this.#scripts.push({ script, remaining: script.count });
  }

  clear(): void {
    this.set({});
  }

  /** The fault for the next request to `endpoint`. */
  decide(endpoint: SimulatorEndpoint): FaultDecision {
    if (this.#rules.length === 0 && this.#scripts.length === 0) return NO_FAULT;
    let kind: FaultDecision['kind'];
    let status = 0;
    let latencyMs = 0;
    let hours = 0;
    let retryAfter: string | undefined;
    const take = (fault: FaultRule | FaultScript) => {
      if (fault.kind === 'latency') latencyMs += fault.latencyMs ?? DEFAULT_LATENCY_MS;
      else if (kind === undefined) {
        kind = fault.kind;
        status = fault.status ?? DEFAULT_FAULT_STATUS[fault.kind];
        retryAfter = fault.retryAfter;
        if (isRecordFaultKind(fault.kind)) hours = fault.hours ?? DEFAULT_FAULT_HOURS;
      }
    };
    const pending = this.#scripts.find((s) => s.remaining > 0 && faultMatches(endpoint, s.script));
    if (pending !== undefined) {
      pending.remaining -= 1;
      take(pending.script);
      if (pending.remaining === 0) this.#scripts = this.#scripts.filter((s) => s.remaining > 0);
    }
    this.#rules.forEach((rule, i) => {
      if (!faultMatches(endpoint, rule)) return;
      const draw = (this.#ruleDraws[i] = (this.#ruleDraws[i] ?? 0) + 1);
      if (unit3(this.#seed, i, draw) < rule.rate) take(rule);
    });
    if (kind === undefined && latencyMs === 0) return NO_FAULT;
    return { kind, status, latencyMs, hours, ...(retryAfter !== undefined && { retryAfter }) };
  }

  state(): FaultState {
    return {
      rules: [...this.#rules],
      scripts: this.#scripts.map((s) => ({ ...s.script, remaining: s.remaining })),
      seed: this.#seed,
    };
  }
}

/** Whether a fault applies to an endpoint: its selector names it, and record faults need history. */
function faultMatches(endpoint: SimulatorEndpoint, fault: FaultRule | FaultScript): boolean {
  return (
    endpointMatches(endpoint, fault.endpoint) &&
    (!isRecordFaultKind(fault.kind) || recordFaultApplies(endpoint, fault.kind))
  );
}
