/**
 * Fixed-window call counters shared by every worker of an installation, on whichever backend
 * holds the queue (`RedisCallCounter`, `PostgresCallCounter`): the `CallBudget` keeps the
 * rate-limit rules BullMQ's limiter does not cover with them.
 */
export interface CallCounter {
  /**
   * Counts one call in window `windowIndex` (whole `durationMs` since the epoch) of the rule
   * lasting `durationMs`; returns the calls counted in that window so far, this one included.
   * A window is forgotten some time after it ends (twice its length).
   */
  increment(durationMs: number, windowIndex: number): Promise<number>;
}
