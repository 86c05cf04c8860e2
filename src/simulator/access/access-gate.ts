import { unit3 } from '../data/deterministic-hash.js';
import type { ApiProduct } from '../simulator-endpoints.js';
import type {
  RetryAfterFormat,
  RetryAfterMode,
  SimulatorRuntimeOptions,
} from '../simulator-options.js';

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
const DAY_MS = 86_400_000;

/**
 * Checks a request's key, entitlement, rate limit and daily quota, in that order, and counts
 * the call against the key's limits when it is let through. Rate limits use fixed windows per
 * key that open with the key's first call; quotas count per UTC day.
 */
export class AccessGate {
  #windows = new Map<string, { start: number; count: number }>();
  #quotas = new Map<string, { day: number; used: number }>();
  #retryAfterDraws = 0;

  constructor(
    private readonly options: () => SimulatorRuntimeOptions,
    private readonly seed: number = 1,
    /** Told of every call the rate limit counts: the key's window, and whether it went through. */
    private readonly onRateCall?: (key: string, windowStartMs: number, allowed: boolean) => void,
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

    const quota = options.dailyQuota;
    if (quota !== null) {
      const day = Math.floor(nowMs / DAY_MS);
      let used = this.#quotas.get(key);
      if (used === undefined || used.day !== day) {
        used = { day, used: 0 };
        this.#quotas.set(key, used);
      }
      if (used.used >= quota.max) {
        const status = quota.status ?? 429;
        return this.#limited(
          status,
          `Limit Exceeded: daily quota of ${quota.max} calls used up`,
          quota,
          Math.max(1, Math.ceil(((day + 1) * DAY_MS - nowMs) / 1000)),
        );
      }
      used.used += 1;
    }
    return ALLOWED;
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
