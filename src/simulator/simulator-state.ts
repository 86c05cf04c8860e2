import type { ServerResponse } from 'node:http';
import type { Logger } from '../logging/create-logger.js';
import { AccessGate } from './access/access-gate.js';
import { QuotaClock } from './access/quota-clock.js';
import { ServedHours } from './data/served-hours.js';
import { FaultInjector } from './faults/fault-injector.js';
import type { FaultSettings } from './faults/fault-settings.js';
import { resolveShapes, type ShapeVariants } from './render/shape-variants.js';
import type { SimulatorRuntimeOptions } from './simulator-options.js';
import { maskKey } from './stats/mask-key.js';
import { RequestLog } from './stats/request-log.js';
import { StatsRecorder, type SimulatorStats } from './stats/simulator-stats.js';

/** Everything one running simulator keeps between requests. */
export class SimulatorState {
  #options: SimulatorRuntimeOptions;
  #shapes: ShapeVariants;
  #fixedNowMs: number | undefined;
  readonly faults: FaultInjector;
  readonly gate: AccessGate;
  /** The clock quotas count on: the simulator's, or faster with short days. */
  readonly quotaClock: QuotaClock;
  readonly stats = new StatsRecorder();
  /** The history hours answered so far, which the `revise` option revises on later answers. */
  readonly served = new ServedHours();
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
    this.quotaClock = new QuotaClock(() => this.nowMs());
    this.quotaClock.set(options.daySeconds, true);
    this.gate = new AccessGate(
      () => this.#options,
      faults.seed ?? 1,
      (key, start, allowed) => this.stats.recordRateCall(maskKey(key), start, allowed),
      this.quotaClock,
      (key) => this.stats.recordQuotaExhausted(maskKey(key)),
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

  /** What the simulator has served, with each key's quota use now. */
  statsSnapshot(): SimulatorStats {
    return this.stats.snapshot(
      this.gate.quotaStats(this.quotaClock.nowMs(), this.#fixedNowMs !== undefined),
    );
  }

  /** Applies a validated change of runtime options. */
  update(patch: Partial<SimulatorRuntimeOptions>): void {
    const nowChanged = patch.now !== undefined && patch.now !== this.#options.now;
    // Read before the change: a new day length goes on from where the quota clock stands.
    const dayChanged =
      patch.daySeconds !== undefined && patch.daySeconds !== this.quotaClock.daySeconds;
    this.#options = Object.freeze({ ...this.#options, ...patch });
    this.#shapes = resolveShapes(this.#options.legacyShapes);
    this.#fixedNowMs = fixedNow(this.#options.now);
    if (nowChanged || dayChanged) this.quotaClock.set(this.#options.daySeconds, nowChanged);
  }
}

function fixedNow(now: number | string | null): number | undefined {
  if (now === null) return undefined;
  return typeof now === 'number' ? now : Date.parse(now);
}
