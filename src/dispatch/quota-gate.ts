import type { Config } from '../config/config.js';
import type { QuotaWindowName } from '../config/quota.js';
import type { QuotaCounter, QuotaPeriods } from '../queue/quota-counter.js';
import { quotaInstant, realMsUntilQuota } from '../windows/quota-instant.js';
import { quotaWindow } from '../windows/quota-window.js';

/** Whose call it is: the sync's may take the reserve, everyone else's (backfill, rebuild) may not. */
export type QuotaUse = 'sync' | 'other';

/** A call the quota refused: the window spent, and when it resets. */
export interface QuotaHold {
  readonly window: QuotaWindowName;
  /** The real instant of the window's reset, epoch ms (the provider's midnight). */
  readonly untilMs: number;
}

/** One configured quota's state: calls used in the current window of the provider's calendar. */
export interface QuotaUsage {
  readonly window: QuotaWindowName;
  readonly used: number;
  readonly limit: number;
  /** Calls of the day only the sync may take (0 for the month). */
  readonly reserve: number;
  /** The real instant of the window's next reset, epoch ms. */
  readonly resetsAtMs: number;
}

/** A cap that binds nothing: the counters stay well within Postgres's integer. */
const NO_CAP = 2_000_000_000;

/**
 * The plan's calendar quotas (ENVDATA_QUOTA) and the sync's reserve (ENVDATA_SYNC_RESERVE), kept
 * for every worker on every host with the queue backend's `QuotaCounter`: a call is counted in
 * its day and month of the provider's calendar (ENVDATA_QUOTA_TIMEZONE; short days with
 * ENVDATA_QUOTA_DAY_SECONDS) only when both have room, and a backfill's, retry's or rebuild's
 * only when the day has room beyond the reserve.
 */
export class QuotaGate {
  constructor(
    private readonly counter: QuotaCounter,
    private readonly quota: Config['quota'],
  ) {}

  /** Whether any quota is configured: without one `take` counts nothing. */
  get enabled(): boolean {
    return this.quota.perDay !== undefined || this.quota.perMonth !== undefined;
  }

  /** Counts one call of `use`; `undefined` when granted, else the window spent and its reset. */
  async take(use: QuotaUse, nowMs = Date.now()): Promise<QuotaHold | undefined> {
    if (!this.enabled) return undefined;
    const { perDay, perMonth, syncReserve } = this.quota;
    const reserve = use === 'sync' ? 0 : syncReserve;
    const caps = {
      day: perDay === undefined ? NO_CAP : perDay - reserve,
      month: perMonth ?? NO_CAP,
    };
    const taken = await this.counter.take(this.periods(nowMs), caps);
    if (taken.granted || taken.refusedBy === undefined) return undefined;
    return { window: taken.refusedBy, untilMs: this.resetMs(taken.refusedBy, nowMs) };
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
    return window === undefined ? undefined : { window, untilMs: this.resetMs(window, nowMs) };
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
    await this.counter.spend(this.periods(nowMs), hold.window, cap);
    return hold;
  }

  /** Each configured quota's use of its current window: what `status` and a price build on. */
  async usage(nowMs = Date.now()): Promise<QuotaUsage[]> {
    if (!this.enabled) return [];
    const used = await this.counter.used(this.periods(nowMs));
    const { perDay, perMonth, syncReserve } = this.quota;
    const usage: QuotaUsage[] = [];
    if (perDay !== undefined) {
      const resetsAtMs = this.resetMs('day', nowMs);
      usage.push({
        window: 'day',
        used: used.day,
        limit: perDay,
        reserve: syncReserve,
        resetsAtMs,
      });
    }
    if (perMonth !== undefined) {
      const resetsAtMs = this.resetMs('month', nowMs);
      usage.push({ window: 'month', used: used.month, limit: perMonth, reserve: 0, resetsAtMs });
    }
    return usage;
  }

  /** The real instant `window` next resets, epoch ms. */
  resetMs(window: QuotaWindowName, nowMs: number): number {
    const { daySeconds, timeZone } = this.quota;
    const w = quotaWindow(quotaInstant(nowMs, daySeconds), timeZone);
    const endMs = window === 'day' ? w.dayEndMs : w.monthEndMs;
    return nowMs + realMsUntilQuota(endMs, nowMs, daySeconds);
  }

  private periods(nowMs: number): QuotaPeriods {
    const { daySeconds, timeZone } = this.quota;
    const w = quotaWindow(quotaInstant(nowMs, daySeconds), timeZone);
    // Kept a day past the window's end (in real time), then forgotten.
    const dayMs = daySeconds * 1_000;
    return {
      day: w.day,
      month: w.month,
      dayKeepMs: realMsUntilQuota(w.dayEndMs, nowMs, daySeconds) + dayMs,
      monthKeepMs: realMsUntilQuota(w.monthEndMs, nowMs, daySeconds) + dayMs,
    };
  }
}
