/** Seconds in a real day: the default `daySeconds`, at which the quota clock is the simulator's own. */
export const REAL_DAY_SECONDS = 86_400;

/** Milliseconds in a calendar day. */
const DAY_MS = 86_400_000;

/**
 * The clock quotas are counted on. With days of `REAL_DAY_SECONDS` it reads the simulator's
 * clock (frozen by the `now` option, else the system clock). With shorter days it runs
 * `86400 / daySeconds` times faster than real time, and its days begin where envdata's short
 * quota days do (ENVDATA_QUOTA_DAY_SECONDS, `quotaInstant`): at whole multiples of `daySeconds`
 * real seconds since the epoch. The date it reads is the simulator's "now"'s (UTC) when the short
 * day was set (or the frozen "now" changed), at the time of day the real short day has reached;
 * calendar months last their number of days times `daySeconds`.
 */
export class QuotaClock {
  #daySeconds = REAL_DAY_SECONDS;
  #anchorQuotaMs = 0;
  #anchorRealMs = 0;

  constructor(
    /** The simulator's "now", epoch ms. */
    private readonly simulatorNowMs: () => number,
    private readonly realNowMs: () => number = Date.now,
  ) {}

  get daySeconds(): number {
    return this.#daySeconds;
  }

  /** Quota milliseconds that pass per real millisecond. */
  get speed(): number {
    return REAL_DAY_SECONDS / this.#daySeconds;
  }

  /** The quota clock's "now", epoch ms. */
  nowMs(): number {
    if (this.#daySeconds === REAL_DAY_SECONDS) return this.simulatorNowMs();
    return this.#anchorQuotaMs + (this.realNowMs() - this.#anchorRealMs) * this.speed;
  }

  /**
   * Real milliseconds until the quota clock reads `quotaMs` (0 if it already has); `null` when
   * it stands still (real days and a frozen "now").
   */
  realMsUntil(quotaMs: number, frozen: boolean): number | null {
    if (frozen && this.#daySeconds === REAL_DAY_SECONDS) return null;
    return Math.max(0, (quotaMs - this.nowMs()) / this.speed);
  }

  /**
   * Sets the day length. The clock goes on from the date it reads, or from the simulator's "now"
   * when `restart` (the frozen "now" changed). Short days are anchored to the epoch: the real
   * short day under way began at the last whole multiple of `daySeconds`, and the clock reads
   * that date's midnight then.
   */
  set(daySeconds: number, restart: boolean): void {
    const from = restart ? this.simulatorNowMs() : this.nowMs();
    this.#daySeconds = daySeconds;
    if (daySeconds === REAL_DAY_SECONDS) {
      this.#anchorQuotaMs = from;
      this.#anchorRealMs = this.realNowMs();
      return;
    }
    const dayRealMs = daySeconds * 1_000;
    this.#anchorQuotaMs = Math.floor(from / DAY_MS) * DAY_MS;
    this.#anchorRealMs = Math.floor(this.realNowMs() / dayRealMs) * dayRealMs;
  }
}
