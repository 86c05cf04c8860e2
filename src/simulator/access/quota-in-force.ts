import type {
  QuotaOption,
  RetryAfterFormat,
  RetryAfterMode,
  SimulatorRuntimeOptions,
} from '../simulator-options.js';

/** The quota the gate enforces, defaults applied. */
export interface QuotaInForce {
  readonly perDay: number | undefined;
  readonly perMonth: number | undefined;
  readonly timeZone: string;
  readonly status: 429 | 422;
  readonly retryAfter: RetryAfterMode;
  readonly retryAfterFormat: RetryAfterFormat | undefined;
}

/**
 * The quota in force: `quota` with its defaults (UTC, 429, no `Retry-After`: the service's
 * habit), else the older `dailyQuota` (UTC days, `Retry-After` by default), else none.
 */
export function quotaInForce(options: SimulatorRuntimeOptions): QuotaInForce | null {
  const quota: QuotaOption | null = options.quota;
  if (quota !== null) {
    return {
      perDay: quota.perDay,
      perMonth: quota.perMonth,
      timeZone: quota.timeZone ?? 'UTC',
      status: quota.status ?? 429,
      retryAfter: quota.retryAfter ?? 'never',
      retryAfterFormat: quota.retryAfterFormat,
    };
  }
  const daily = options.dailyQuota;
  if (daily === null) return null;
  return {
    perDay: daily.max,
    perMonth: undefined,
    timeZone: 'UTC',
    status: daily.status ?? 429,
    retryAfter: daily.retryAfter ?? 'always',
    retryAfterFormat: daily.retryAfterFormat,
  };
}
