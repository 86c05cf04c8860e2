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
  /**
   * The rate limit's fixed windows as the simulator counted them, per masked key, oldest first
   * (the most recent `RATE_WINDOWS_KEPT`): what "no more calls per window than the limit" is
   * measured on. Empty without a rate limit.
   */
  readonly rateWindows: readonly RateWindowStats[];
  /** Masked key → calls refused because its quota was spent (part of `byStatus`' 429s or 422s). */
  readonly quotaExhausted: Readonly<Record<string, number>>;
  /**
   * Each accepted key's quota use and next resets, now: not zeroed by a stats reset (a limits
   * reset zeroes it). `null` without a quota.
   */
  readonly quota: QuotaStats | null;
  /** When counting started (ISO). */
  readonly since: string;
}

/** One fixed window of the rate limit, for one key. */
export interface RateWindowStats {
  /** Masked key (`envd…`). */
  readonly key: string;
  /** When the window opened (ISO, the simulator's clock): with the key's first call after the last one closed. */
  readonly start: string;
  /** Calls let through in the window (at most the limit's `max`). */
  readonly allowed: number;
  /** Calls refused 429 in the window. */
  readonly limited: number;
}

/** The quota in force and what each key has used of it. */
export interface QuotaStats {
  /**
   * The quota clock's "now" (ISO): the simulator's clock, running `86400 / daySeconds` times
   * faster with short days. Days and months are read on it.
   */
  readonly clock: string;
  /** Real seconds a quota day lasts. */
  readonly daySeconds: number;
  /** The IANA zone whose midnight ends a quota day. */
  readonly timeZone: string;
  /** Calls per key per day; `null`: no daily cap. */
  readonly perDay: number | null;
  /** Calls per key per calendar month; `null`: no monthly cap. */
  readonly perMonth: number | null;
  /** One entry per accepted key, in the order of the `keys` option. */
  readonly keys: readonly QuotaKeyStats[];
}

/** One key's quota use. Keys sharing their first four characters have entries with the same `key`. */
export interface QuotaKeyStats {
  /** Masked key (`envd…`). */
  readonly key: string;
  /** The quota day (`YYYY-MM-DD` in `timeZone`, on the quota clock). */
  readonly day: string;
  readonly usedToday: number;
  /** The quota month (`YYYY-MM`). */
  readonly month: string;
  readonly usedThisMonth: number;
  /** Whether its next call is refused for a spent quota. */
  readonly exhausted: boolean;
  /** When the day's count starts again (ISO, on the quota clock). */
  readonly dayResetsAt: string;
  /** When the month's count starts again (ISO, on the quota clock). */
  readonly monthResetsAt: string;
  /** Real milliseconds until `dayResetsAt`; `null` while the clock stands still (frozen, real days). */
  readonly dayResetsInMs: number | null;
  /** Real milliseconds until `monthResetsAt`; `null` as for `dayResetsInMs`. */
  readonly monthResetsInMs: number | null;
}

/** How many rate windows `SimulatorStats.rateWindows` keeps: an hour of 1-second windows. */
export const RATE_WINDOWS_KEPT = 3_600;

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
  #quotaExhausted = new Map<string, number>();
  #rateWindows: { key: string; startMs: number; allowed: number; limited: number }[] = [];
  /** Masked key → its current window (the last of `#rateWindows` for that key). */
  #openWindows = new Map<
    string,
    { key: string; startMs: number; allowed: number; limited: number }
  >();

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

  /** Counts one call the rate limit looked at, in its key's window opened at `windowStartMs`. */
  recordRateCall(maskedKey: string, windowStartMs: number, allowed: boolean): void {
    let window = this.#openWindows.get(maskedKey);
    if (window === undefined || window.startMs !== windowStartMs) {
      window = { key: maskedKey, startMs: windowStartMs, allowed: 0, limited: 0 };
      this.#openWindows.set(maskedKey, window);
      this.#rateWindows.push(window);
      if (this.#rateWindows.length >= 2 * RATE_WINDOWS_KEPT) {
        this.#rateWindows = this.#rateWindows.slice(-RATE_WINDOWS_KEPT);
      }
    }
    if (allowed) window.allowed += 1;
    else window.limited += 1;
  }

  /** Counts one call refused because the key's quota was spent. */
  recordQuotaExhausted(maskedKey: string): void {
    increment(this.#quotaExhausted, maskedKey);
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
    this.#quotaExhausted.clear();
    this.#rateWindows = [];
    this.#openWindows.clear();
  }

  /** The counts, with `quota` (which the access gate keeps) as given. */
  snapshot(quota: QuotaStats | null = null): SimulatorStats {
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
      rateWindows: this.#rateWindows.slice(-RATE_WINDOWS_KEPT).map((w) => ({
        key: w.key,
        start: new Date(w.startMs).toISOString(),
        allowed: w.allowed,
        limited: w.limited,
      })),
      quotaExhausted: Object.fromEntries(this.#quotaExhausted),
      quota,
      since: this.#since.toISOString(),
    };
  }
}

function increment(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
