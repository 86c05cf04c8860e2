import { unit3 } from '../data/deterministic-hash.js';
import type { ApiProduct } from '../simulator-endpoints.js';
import type {
  RetryAfterFormat,
  RetryAfterMode,
  SimulatorRuntimeOptions,
} from '../simulator-options.js';
import { maskKey } from '../stats/mask-key.js';
import type { QuotaStats } from '../stats/simulator-stats.js';
import type { QuotaClock } from './quota-clock.js';
import { quotaInForce, type QuotaInForce } from './quota-in-force.js';
import { quotaWindow, type QuotaWindow } from './quota-window.js';

/** Whether a request may go on, and if not the answer it gets. */
export type AccessVerdict =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      readonly status: 401 | 403 | 422 | 429;
      readonly message: string;
      /** The `Retry-After` header's value, when it is sent. */
      readonly retryAfter?: string;
    };

const ALLOWED: AccessVerdict = Object.freeze({ allowed: true });

/** How the service answers a call past a spent quota (`../shared/spec/upstream-responses.md`). */
export const QUOTA_EXCEEDED_MESSAGE = 'quota exceeded';

/** One key's quota counts, in the day and month they belong to. */
interface QuotaCount {
  day: string;
  usedToday: number;
  month: string;
  usedThisMonth: number;
}

/**
 * Checks a request's key, entitlement, rate limit and quota, in that order, and counts the call
 * against the key's limits when it is let through. Rate limits use fixed windows per key that
 * open with the key's first call; quotas count per key per day and calendar month of the quota
 * clock, in the quota's time zone.
 */
export class AccessGate {
  #windows = new Map<string, { start: number; count: number }>();
  #quotas = new Map<string, QuotaCount>();
  #retryAfterDraws = 0;

  constructor(
    private readonly options: () => SimulatorRuntimeOptions,
    private readonly seed: number = 1,
    /** Told of every call the rate limit counts: the key's window, and whether it went through. */
    private readonly onRateCall?: (key: string, windowStartMs: number, allowed: boolean) => void,
    /** The clock quotas count on; without one, the `nowMs` each check is given. */
    private readonly quotaClock?: QuotaClock,
    /** Told of every call refused because the key's quota is spent. */
    private readonly onQuotaExhausted?: (key: string) => void,
  ) {}

  check(key: string | undefined, product: ApiProduct, nowMs: number): AccessVerdict {
    const options = this.options();
    if (key === undefined || key === '') {
      return {
        allowed: false,
        status: 401,
        message: 'Unauthorized: send your API key in the x-api-key header',
      };
    }
    const products = Object.hasOwn(options.keys, key) ? options.keys[key] : undefined;
    if (products === undefined) {
      return { allowed: false, status: 401, message: 'Unauthorized: invalid API key' };
    }
    if (!products.includes(product)) {
      return {
        allowed: false,
        status: 403,
        message: `Forbidden: this API key is not entitled to ${product} data`,
      };
    }

    const limit = options.rateLimit;
    if (limit !== null) {
      let window = this.#windows.get(key);
      if (window === undefined || nowMs >= window.start + limit.durationMs) {
        window = { start: nowMs, count: 0 };
        this.#windows.set(key, window);
      }
      if (window.count >= limit.max) {
        this.onRateCall?.(key, window.start, false);
        return this.#limited(
          429,
          'Too Many Requests',
          limit,
          Math.max(1, Math.ceil((window.start + limit.durationMs - nowMs) / 1000)),
        );
      }
      window.count += 1;
      this.onRateCall?.(key, window.start, true);
    }

    const quota = quotaInForce(options);
    if (quota !== null) {
      const quotaNowMs = this.quotaClock?.nowMs() ?? nowMs;
      const window = quotaWindow(quotaNowMs, quota.timeZone);
      const count = this.#count(key, window);
      const dayFull = quota.perDay !== undefined && count.usedToday >= quota.perDay;
      const monthFull = quota.perMonth !== undefined && count.usedThisMonth >= quota.perMonth;
      if (dayFull || monthFull) {
        this.onQuotaExhausted?.(key);
        // The count starts again at the later of the spent windows' ends.
        const resetMs = monthFull ? window.monthEndMs : window.dayEndMs;
        const speed = this.quotaClock?.speed ?? 1;
        return this.#limited(
          quota.status,
          QUOTA_EXCEEDED_MESSAGE,
          quota,
          Math.max(1, Math.ceil((resetMs - quotaNowMs) / speed / 1000)),
        );
      }
      count.usedToday += 1;
      count.usedThisMonth += 1;
    }
    return ALLOWED;
  }

  /**
   * Each accepted key's quota use at the quota clock's `quotaNowMs` (calls counted in windows
   * that have ended read 0); `null` without a quota. `frozen`: the simulator's clock is frozen.
   */
  quotaStats(quotaNowMs: number, frozen: boolean): QuotaStats | null {
    const options = this.options();
    const quota = quotaInForce(options);
    if (quota === null) return null;
    const window = quotaWindow(quotaNowMs, quota.timeZone);
    const until = (quotaMs: number) =>
      this.quotaClock === undefined
        ? frozen
          ? null
          : Math.max(0, quotaMs - quotaNowMs)
        : this.quotaClock.realMsUntil(quotaMs, frozen);
    return {
      clock: new Date(quotaNowMs).toISOString(),
      daySeconds: this.quotaClock?.daySeconds ?? 86_400,
      timeZone: quota.timeZone,
      perDay: quota.perDay ?? null,
      perMonth: quota.perMonth ?? null,
      keys: Object.keys(options.keys).map((key) => {
        const count = this.#quotas.get(key);
        const usedToday = count?.day === window.day ? count.usedToday : 0;
        const usedThisMonth = count?.month === window.month ? count.usedThisMonth : 0;
        return {
          key: maskKey(key),
          day: window.day,
          usedToday,
          month: window.month,
          usedThisMonth,
          exhausted: isSpent(quota, usedToday, usedThisMonth),
          dayResetsAt: new Date(window.dayEndMs).toISOString(),
          monthResetsAt: new Date(window.monthEndMs).toISOString(),
          dayResetsInMs: until(window.dayEndMs),
          monthResetsInMs: until(window.monthEndMs),
        };
      }),
    };
  }

  /** The key's quota counts, zeroed for a day or month that has begun since its last call. */
  #count(key: string, window: QuotaWindow): QuotaCount {
    let count = this.#quotas.get(key);
    if (count === undefined) {
      count = { day: window.day, usedToday: 0, month: window.month, usedThisMonth: 0 };
      this.#quotas.set(key, count);
    }
    if (count.day !== window.day) {
      count.day = window.day;
      count.usedToday = 0;
    }
    if (count.month !== window.month) {
      count.month = window.month;
      count.usedThisMonth = 0;
    }
    return count;
  }

  /** Forgets every rate window and quota count. */
  reset(): void {
    this.#windows.clear();
    this.#quotas.clear();
    this.#retryAfterDraws = 0;
  }

  #limited(
    status: 422 | 429,
    message: string,
    sending: { readonly retryAfter?: RetryAfterMode; readonly retryAfterFormat?: RetryAfterFormat },
    seconds: number,
  ): AccessVerdict {
    const mode = sending.retryAfter ?? 'always';
    const send =
      mode === 'always' ||
      (mode === 'sometimes' && unit3(this.seed, 0x4e7a, ++this.#retryAfterDraws) < 0.5);
    return send
      ? { allowed: false, status, message, retryAfter: retryAfterHeader(sending, seconds) }
      : { allowed: false, status, message };
  }
}

function isSpent(quota: QuotaInForce, usedToday: number, usedThisMonth: number): boolean {
  return (
    (quota.perDay !== undefined && usedToday >= quota.perDay) ||
    (quota.perMonth !== undefined && usedThisMonth >= quota.perMonth)
  );
}

/** The `Retry-After` value for a wait of `seconds`, written as `retryAfterFormat` says. */
function retryAfterHeader(
  sending: { readonly retryAfterFormat?: RetryAfterFormat },
  seconds: number,
): string {
  const format = sending.retryAfterFormat ?? 'seconds';
  if (format === 'seconds') return String(seconds);
  if (format === 'milliseconds') return String(seconds * 1000);
  return format.header;
}
