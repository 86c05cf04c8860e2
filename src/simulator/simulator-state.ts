import type { ServerResponse } from 'node:http';
import type { Logger } from '../logging/create-logger.js';
import { AccessGate } from './access/access-gate.js';
import { FaultInjector } from './faults/fault-injector.js';
import type { FaultSettings } from './faults/fault-settings.js';
import { resolveShapes, type ShapeVariants } from './render/shape-variants.js';
import type { SimulatorRuntimeOptions } from './simulator-options.js';
import { maskKey } from './stats/mask-key.js';
import { RequestLog } from './stats/request-log.js';
import { StatsRecorder } from './stats/simulator-stats.js';

/** Everything one running simulator keeps between requests. */
export class SimulatorState {
  #options: SimulatorRuntimeOptions;
  #shapes: ShapeVariants;
  #fixedNowMs: number | undefined;
  readonly faults: FaultInjector;
  readonly gate: AccessGate;
  readonly stats = new StatsRecorder();
  /** The recent requests with their queries (`requestLog` option; off by default). */
  readonly requests: RequestLog;
  /** Responses held by `hang` faults, ended when the simulator closes. */
  readonly held = new Set<ServerResponse>();
  /** Pending `latency` timers, cleared when the simulator closes. */
  readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    options: SimulatorRuntimeOptions,
    faults: FaultSettings,
    readonly admin: boolean,
    readonly logger: Logger | undefined,
    /** What `/__admin/…` requires; `undefined`: open (loopback only). */
    readonly adminToken: string | undefined = undefined,
    requestLog = 0,
  ) {
    this.#options = options;
    this.#shapes = resolveShapes(options.legacyShapes);
    this.#fixedNowMs = fixedNow(options.now);
    this.faults = new FaultInjector(faults);
    this.gate = new AccessGate(
      () => this.#options,
      faults.seed ?? 1,
      (key, start, allowed) => this.stats.recordRateCall(maskKey(key), start, allowed),
    );
    this.requests = new RequestLog(requestLog);
  }

  get options(): SimulatorRuntimeOptions {
    return this.#options;
  }

  get shapes(): ShapeVariants {
    return this.#shapes;
  }

  /** The simulator's "now", epoch ms: frozen by the `now` option, else the system clock. */
  nowMs(): number {
    return this.#fixedNowMs ?? Date.now();
  }

  /** Applies a validated change of runtime options. */
  update(patch: Partial<SimulatorRuntimeOptions>): void {
    this.#options = Object.freeze({ ...this.#options, ...patch });
    this.#shapes = resolveShapes(this.#options.legacyShapes);
    this.#fixedNowMs = fixedNow(this.#options.now);
  }
}

function fixedNow(now: number | string | null): number | undefined {
  if (now === null) return undefined;
  return typeof now === 'number' ? now : Date.parse(now);
}
