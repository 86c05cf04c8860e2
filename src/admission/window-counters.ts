/**
 * The rate-limit rules' counters, shared by every worker of an installation, on whichever backend
 * holds the queue (`RedisWindowCounters`, `PostgresWindowCounters`; `admissionStores`): fixed
 * windows for the rules the `CallBudget` keeps (`increment`), and the call slots the `CallPacer`
 * spaces the tightest rule with (`reserve`, `release`, `roundTrip`).
 *
 * The slots' rule, on the backend's clock (Redis `TIME`, Postgres `clock_timestamp()`, one
 * for every host): no `windowMs` holds more than `max` slots. A new slot is the earliest instant
 * from now on that keeps it, and `spacingMs` after the latest slot at least (the slots stay
 * sorted, and calls reach the service one by one rather than as a burst it reads in turn); a
 * slot is reserved only up to `horizonMs` ahead, so that a call that missed its slot can still
 * move it to now (`moving`) without crowding a window: no slot a window after the missed one is
 * taken yet. Slots a window old can share no window with a new one and are dropped; a rule's
 * slots are forgotten two windows after the last.
 */
export interface WindowCounters {
  /**
   * Counts one call in fixed window `windowIndex` (whole `durationMs` since the epoch) of the rule
   * lasting `durationMs`; returns the calls counted in that window so far, this one included.
   * A window is forgotten some time after it ends (twice its length).
   */
  increment(durationMs: number, windowIndex: number): Promise<number>;

  /**
   * Reserves a slot for one call of `rule`: now, `spacingMs` after the latest slot, or when the
   * `max`-th latest slot is `windowMs` old, whichever is latest (see `WindowCounters`). Beyond
   * `horizonMs` from now nothing is reserved: `slot` is `undefined` and `waitMs` says when the
   * slot would be (ask again `horizonMs` before).
   * With `moving` (a slot of this caller no call was made at, missed): that slot moves to now when
   * no slot is reserved a window after it (always, when it is less than `windowMs - horizonMs`
   * late); else it is given back and a slot reserved as without it.
   */
  reserve(
    rule: string,
    max: number,
    windowMs: number,
    options?: ReserveOptions,
  ): Promise<Reservation>;

  /**
   * Gives back a slot no call was made at (`Reservation.slot`): it no longer counts against the
   * window. Removes one slot at that instant, if still kept; resolves either way.
   */
  release(rule: string, slot: number): Promise<void>;

  /**
   * One round trip to the backend, timed like a reservation: whether this host still reaches it
   * as fast as usual, just before a call goes (a host cut off while it waited for its slot must
   * not send a call that would arrive when the link is back, out of its slot).
   */
  roundTrip(): Promise<Pick<Reservation, 'askedAt' | 'answeredAt'>>;
}

export interface ReserveOptions {
  /** Reserve no slot further ahead than this (ms). Default: no limit. */
  readonly horizonMs?: number;
  /** Least time from the latest slot to a new one (ms). Default 0. */
  readonly spacingMs?: number;
  /** A slot of this caller it missed: moved to now when it can be, else given back. */
  readonly moving?: number;
}

/** A slot reserved, and when (`performance.now()`) the backend could have read its clock. */
export interface Reservation {
  /** Milliseconds from the backend's now to the slot (0: now). */
  readonly waitMs: number;
  /**
   * The slot, epoch milliseconds on the backend's clock: what `release` gives back and `moving`
   * moves. `undefined`: none reserved, the slot is beyond the horizon.
   */
  readonly slot: number | undefined;
  /**
   * Just before the request that read the clock was sent: once a connection (and on Postgres
   * the rule's lock) was held, so that waiting for them is not taken for lateness.
   */
  readonly askedAt: number;
  /** When the reservation was answered (and on Postgres committed). */
  readonly answeredAt: number;
}
