/**
 * What the simulator has served since start or the last reset. Statuses are HTTP statuses as
 * strings, or `reset` / `hang` for requests answered by a dropped or held connection.
 */
export interface SimulatorStats {
  /** Requests to the 13 service endpoints and unknown paths; admin requests are not counted here. */
  readonly total: number;
  /** Endpoint id (or `unknown`) → requests. */
  readonly byEndpoint: Readonly<Record<string, number>>;
  /** Status → requests. */
  readonly byStatus: Readonly<Record<string, number>>;
  /** Masked key (`envd…`, `(none)`) → requests. */
  readonly byKey: Readonly<Record<string, number>>;
  /** Endpoint id → status → requests. */
  readonly byEndpointStatus: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Fault kind → requests it was injected into (latency included). */
  readonly faults: Readonly<Record<string, number>>;
  /** Requests to `/__admin/…`. */
  readonly adminRequests: number;
  /** When counting started (ISO). */
  readonly since: string;
}

/** Counts requests as they are answered; cheap enough for the hot path. */
export class StatsRecorder {
  #total = 0;
  #admin = 0;
  #since = new Date();
  #byEndpoint = new Map<string, number>();
  #byStatus = new Map<string, number>();
  #byKey = new Map<string, number>();
  #byEndpointStatus = new Map<string, Map<string, number>>();
  #faults = new Map<string, number>();

  /** Counts one answered request; call it before the answer is written. */
  record(endpointId: string, maskedKey: string, status: number | 'reset' | 'hang'): void {
    const statusKey = String(status);
    this.#total += 1;
    increment(this.#byEndpoint, endpointId);
    increment(this.#byStatus, statusKey);
    increment(this.#byKey, maskedKey);
    let statuses = this.#byEndpointStatus.get(endpointId);
    if (statuses === undefined) {
      statuses = new Map();
      this.#byEndpointStatus.set(endpointId, statuses);
    }
    increment(statuses, statusKey);
  }

  recordFault(kind: string): void {
    increment(this.#faults, kind);
  }

  recordAdmin(): void {
    this.#admin += 1;
  }

  reset(): void {
    this.#total = 0;
    this.#admin = 0;
    this.#since = new Date();
    this.#byEndpoint.clear();
    this.#byStatus.clear();
    this.#byKey.clear();
    this.#byEndpointStatus.clear();
    this.#faults.clear();
  }

  snapshot(): SimulatorStats {
    return {
      total: this.#total,
      byEndpoint: Object.fromEntries(this.#byEndpoint),
      byStatus: Object.fromEntries(this.#byStatus),
      byKey: Object.fromEntries(this.#byKey),
      byEndpointStatus: Object.fromEntries(
        [...this.#byEndpointStatus].map(([id, statuses]) => [id, Object.fromEntries(statuses)]),
      ),
      faults: Object.fromEntries(this.#faults),
      adminRequests: this.#admin,
      since: this.#since.toISOString(),
    };
  }
}

function increment(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
