/** The day and month a call counts in, as the provider's calendar names them, and how long to keep each count. */
export interface QuotaPeriods {
  /** The provider's local date, `2026-11-26`. */
  readonly day: string;
  /** The provider's local month, `2026-11`. */
  readonly month: string;
  /** Real milliseconds after which the day's count may be forgotten (past its end). */
  readonly dayKeepMs: number;
  /** Real milliseconds after which the month's count may be forgotten (past its end). */
  readonly monthKeepMs: number;
}

/** The most calls this caller may see counted in each window, this one included. */
export interface QuotaCaps {
  readonly day: number;
  readonly month: number;
}

/** What a take found: counted (`granted`), or refused by the window that is spent. */
export interface QuotaTake {
  readonly granted: boolean;
  /** The window whose cap refused the call; the day's when both do. */
  readonly refusedBy: 'day' | 'month' | undefined;
  /** Calls counted in the day and the month, this one included when granted. */
  readonly dayUsed: number;
  readonly monthUsed: number;
}

/**
 * The calendar quotas' and the budget's counters, shared by every worker of an installation, in
 * the warehouse whichever backend holds the queue (`PostgresQuotaCounter`): `QuotaGate` keeps ENVDATA_QUOTA
 * and the sync's reserve with them.
 */
export interface QuotaCounter {
  /**
   * Counts one call in the day and the month if neither has reached its cap, atomically against
   * every other worker on every host: two workers never both take the last call.
   */
  take(periods: QuotaPeriods, caps: QuotaCaps): Promise<QuotaTake>;
  /**
   * Records that the service says `window` is spent: its count rises to `cap` (never falls), so
   * every worker's next `take` is refused until the period ends, without asking the service; the
   * count envdata had reached when the service refused is kept beside it (`refusals`).
   */
  spend(periods: QuotaPeriods, window: 'day' | 'month', cap: number): Promise<void>;
  /** The calls counted so far in the day and the month. */
  used(periods: QuotaPeriods): Promise<{ day: number; month: number }>;
  /**
   * The windows the service itself refused (QUOTA_EXCEEDED) in these periods, each with the calls
   * envdata had counted in it when it did; a window absent: not refused by the service.
   */
  refusals(periods: QuotaPeriods): Promise<ServiceRefusals>;
}

/** Per window the service refused: the calls envdata had counted in it then. */
export interface ServiceRefusals {
  readonly day?: number;
  readonly month?: number;
}

/** The period key under which the count at the service's refusal of `period` is kept. */
export function serviceRefusalPeriod(period: string): string {
  return `${period}:refused-by-service`;
}
