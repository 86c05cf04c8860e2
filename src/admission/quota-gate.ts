import type { Config } from '../config/config.js';
import { monthCapOf, type QuotaLimitedBy, type QuotaWindowName } from '../config/quota.js';
import type { QuotaCounter } from './quota-counter.js';
import {
  quotaConfigured,
  quotaPeriodsOf,
  quotaResetMs,
  readQuotaUsage,
  type QuotaUsage,
} from './quota-usage.js';

export type { QuotaLimitedBy } from '../config/quota.js';
export type { QuotaUsage } from './quota-usage.js';

/** Whose call it is: the sync's may take the reserve, everyone else's (backfill, rebuild) may not. */
export type QuotaUse = 'sync' | 'other';

/** A call the quota refused: the window spent, and when it resets. */
export interface QuotaHold {
  readonly window: QuotaWindowName;
  /** Whose cap the window reached: a run then waits for `quota (month)` or `budget (month)`. */
  readonly by: QuotaLimitedBy;
  /** The real instant of the window's reset, epoch ms (the provider's midnight). */
  readonly untilMs: number;
  /**
   * The service itself refused the window (QUOTA_EXCEEDED) below envdata's cap: the calls envdata
   * had counted then, and that cap. Absent when envdata's own cap holds the work.
   */
  readonly refusedByService?: { readonly counted: number; readonly limit: number };
}

/** A cap that binds nothing: the counters stay well within Postgres's integer. */
const NO_CAP = 2_000_000_000;

/**
 * The plan's calendar quotas (ENVDATA_QUOTA), the budget's monthly calls (ENVDATA_BUDGET ÷
 * ENVDATA_PRICE_PER_CALL) and the sync's reserve (ENVDATA_SYNC_RESERVE), kept for every worker
 * on every host with the queue backend's `QuotaCounter`: a call is counted in its day and month
 * of the provider's calendar (ENVDATA_QUOTA_TIMEZONE; short days with ENVDATA_QUOTA_DAY_SECONDS)
 * only when both have room, and a backfill's, retry's or rebuild's only when the day has room
 * beyond the reserve.
 */
export class QuotaGate {
  constructor(
    private readonly counter: QuotaCounter,
    private readonly quota: Config['quota'],
  ) {}

  /** Whether any quota (or budget) is configured: without one `take` counts nothing. */
  get enabled(): boolean {
    return quotaConfigured(this.quota);
  }

  /** Counts one call of `use`; `undefined` when granted, else the window spent and its reset. */
  async take(use: QuotaUse, nowMs = Date.now()): Promise<QuotaHold | undefined> {
    if (!this.enabled) return undefined;
    const { perDay, syncReserve } = this.quota;
    const reserve = use === 'sync' ? 0 : syncReserve;
    const month = monthCapOf(this.quota);
    const caps = {
      day: perDay === undefined ? NO_CAP : perDay - reserve,
      month: month?.limit ?? NO_CAP,
    };
    const taken = await this.counter.take(quotaPeriodsOf(this.quota, nowMs), caps);
    if (taken.granted || taken.refusedBy === undefined) return undefined;
    const window = taken.refusedBy;
    const by = window === 'month' ? (month?.by ?? 'quota') : 'quota';
    const hold = { window, by, untilMs: this.resetMs(window, nowMs) };
    return this.withRefusal(hold, nowMs);
  }

  /** `hold` with the service's refusal of its window, when the service refused it. */
  private async withRefusal(hold: QuotaHold, nowMs: number): Promise<QuotaHold> {
    const refusals = await this.counter.refusals(quotaPeriodsOf(this.quota, nowMs));
    const counted = refusals[hold.window];
    if (counted === undefined) return hold;
    const limit = hold.window === 'day' ? this.quota.perDay : monthCapOf(this.quota)?.limit;
    return { ...hold, by: 'quota', refusedByService: { counted, limit: limit ?? counted } };
  }

  /**
   * The real instant the tightest configured quota next resets (the day's when there is one):
   * how long every worker waits when the service says the quota is spent. `undefined` without a
   * quota.
   */
  nextReset(nowMs = Date.now()): QuotaHold | undefined {
    const window =
      this.quota.perDay !== undefined
        ? 'day'
        : this.quota.perMonth !== undefined
          ? 'month'
          : undefined;
    return window === undefined
      ? undefined
      : { window, by: 'quota', untilMs: this.resetMs(window, nowMs) };
  }

  /**
   * The service said the quota is spent (QUOTA_EXCEEDED): the tightest configured window (the
   * day's when there is one) is marked spent for every worker, so none asks the service again
   * before it resets. Returns that window and its reset; `undefined` without a quota.
   */
  async spent(nowMs = Date.now()): Promise<QuotaHold | undefined> {
    const hold = this.nextReset(nowMs);
    if (hold === undefined) return undefined;
    const cap = hold.window === 'day' ? this.quota.perDay! : this.quota.perMonth!;
    await this.counter.spend(quotaPeriodsOf(this.quota, nowMs), hold.window, cap);
    return this.withRefusal(hold, nowMs);
  }

  /** Each configured quota's use of its current window (`readQuotaUsage`). */
  usage(nowMs = Date.now()): Promise<QuotaUsage[]> {
    return readQuotaUsage(this.counter, this.quota, nowMs);
  }

  /** The real instant `window` next resets, epoch ms. */
  resetMs(window: QuotaWindowName, nowMs: number): number {
    return quotaResetMs(this.quota, window, nowMs);
  }
}
