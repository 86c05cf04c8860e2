/**
 * Call slots shared by every worker of an installation, on whichever backend holds the queue
 * (`RedisCallSlots`, `PostgresCallSlots`): the `CallPacer` spaces the calls of the tightest
 * rate-limit rule with them.
 */
export interface CallSlots {
  /**
   * Reserves the earliest slot for one call such that no `windowMs` holds more than `max` slots
   * of `rule`: now, or when the `max`-th latest slot is `windowMs` old. Time is the backend's
   * clock (Redis `TIME`, Postgres `clock_timestamp()`), one for every host. Only the last `max`
   * slots are kept, forgotten some time after the last.
   */
  reserve(rule: string, max: number, windowMs: number): Promise<Reservation>;

  /**
   * One round trip to the backend, timed like a reservation: whether this host still reaches it
   * as fast as usual, just before a call goes (a host cut off while it waited for its slot must
   * not send a call that would arrive when the link is back, out of its slot).
   */
  roundTrip(): Promise<Pick<Reservation, 'askedAt' | 'answeredAt'>>;
}

/** A slot reserved, and when (`performance.now()`) the backend could have read its clock. */
export interface Reservation {
  /** Milliseconds from the backend's now to the slot (0: now). */
  readonly waitMs: number;
  /**
   * Just before the request that read the clock was sent: once a connection (and on Postgres
   * the rule's lock) was held, so that waiting for them is not taken for lateness.
   */
  readonly askedAt: number;
  /** When the reservation was answered (and on Postgres committed). */
  readonly answeredAt: number;
}
