/** How many recent calls the margin is measured on: a few seconds at a plan's usual rate. */
const SAMPLES = 128;
/**
 * Calls measured before the margin is earned (all of `SAMPLES`: a few dozen said too little, and
 * a margin earned on them let a 429 through); until then the window's thirtieth, at least 20 ms.
 */
const MIN_SAMPLES = SAMPLES;
/** The margin at least: the backend's and the service's clocks both count whole milliseconds. */
const FLOOR_MS = 3;
/** The least allowance for lateness: timers fire a millisecond or two late on any host. */
const MIN_ALLOWED_LATE_MS = 2;

/** One paced call that went, in `performance.now()` milliseconds of this process. */
export interface PacedCallTimes {
  /** When the pacer let it go: the request is sent at once. */
  readonly wentAt: number;
  /** When its answer (or failure) came back. */
  readonly answeredAt: number;
}

/** A ring of the last `SAMPLES` numbers. */
class Recent {
  readonly values: number[] = [];
  private next = 0;

  add(value: number): void {
    if (this.values.length < SAMPLES) this.values.push(value);
    else this.values[this.next] = value;
    this.next = (this.next + 1) % SAMPLES;
  }

  get full(): boolean {
    return this.values.length >= MIN_SAMPLES;
  }

  spread(): number {
    let low = Number.POSITIVE_INFINITY;
    let high = Number.NEGATIVE_INFINITY;
    for (const v of this.values) {
      if (v < low) low = v;
      if (v > high) high = v;
    }
    return high - low;
  }
}

/**
 * The margin a window of the rate-limit rule needs on top of its length, measured on the last
 * calls of this process: how far apart the service may count two calls whose slots are a window
 * apart. Two parts, each measured:
 *
 * - **The service's part.** The service counts a call when the request reaches it, somewhere
 *   between sending and the answer; like NTP, take the middle of that round trip as the service's
 *   reading of the call. How far that reading moves from call to call (half the round trip:
 *   largest minus smallest) is the jitter of the network and of the service's reading, which no
 *   pacer controls.
 * - **This process's part.** How late after its slot the pacer lets a call go (a loaded event
 *   loop fires timers late; a slow round trip to the backend). The pacer does not let a call go
 *   later than `allowedLateMs`: it moves the slot to now and the call goes then, so the calls
 *   after it in its place of the window come as much later. So the allowance is chosen from the
 *   lateness measured: the one that spaces calls least, the margin plus the lateness beyond it
 *   per call — a few milliseconds on a quiet host, more when the host is loaded, never a fixed
 *   share.
 *
 * Until enough calls were measured the margin is the former fixed one, a thirtieth of the window
 * (at least 20 ms), or more on a process that stalls: the allowance plus its longest recent stall
 * (`stallMs`). Nothing bounds the time from the pacer letting a call go to the request on the
 * socket: a garbage collection, or busy cores descheduling the process, holds it there (the
 * likely cause of a 429 among a worker's first calls in a loaded CI run). Once measured, that
 * time is in the lateness and the round trips, and the stall is not added: most of it is the
 * process's own tasks (normalising a chunk), which run between calls, never within the
 * microtasks from the pacer's last look to the socket; added whole, it cost 3.5 % of R on a
 * quiet host (`npm run bench:backfill -- --parts 2`). The margin never goes below 3 ms nor
 * above a tenth of the window (at most 250 ms, BullMQ's limiter's margin in `queueLimiter`): a
 * link that jittery needs a lower ENVDATA_RATE_LIMIT, not a pacer.
 */
export class PaceMargin {
  private readonly lateness = new Recent();
  private readonly readings = new Recent();
  private measured: { marginMs: number; allowedLateMs: number } | undefined;
  /** After a 429: the margin at least, for how many more calls. */
  private widenedMs = 0;
  private widened = 0;
  /** The margin before any measurement, and the largest one. */
  readonly initialMs: number;
  readonly maxMs: number;

  /**
   * @param stallMs This process's longest recent stall (`longestLoopStallMs`), taken in whole
   *   until the margin is measured.
   */
  constructor(
    readonly durationMs: number,
    private readonly stallMs: () => number = () => 0,
  ) {
    this.initialMs = Math.max(20, Math.ceil(durationMs / 30));
    this.maxMs = Math.max(this.initialMs, Math.min(250, Math.ceil(durationMs / 10)));
  }

  /** The margin now, whole milliseconds. */
  get marginMs(): number {
    const margin =
      this.measured?.marginMs ??
      Math.min(
        this.maxMs,
        Math.max(this.initialMs, Math.ceil(this.allowedLateMs + this.stallMs())),
      );
    return this.widened > 0 ? Math.max(margin, this.widenedMs) : margin;
  }

  /**
   * The service refused a call for too many calls: whatever was measured, the margin was too
   * narrow for it (a stall of this host or of the service longer than the margin). It doubles
   * (at least the initial one, at most the largest) for the next `SAMPLES` calls, while the
   * measurement takes the stall in.
   */
  throttled(): void {
    this.widenedMs = Math.min(this.maxMs, Math.max(this.initialMs, 2 * this.marginMs));
    this.widened = SAMPLES;
  }

  /** How late after its slot a call may go now: the part of the margin that is this process's. */
  get allowedLateMs(): number {
    return this.measured?.allowedLateMs ?? Math.floor(this.initialMs / 2);
  }

  /**
   * The slowest recent round trip of a call (ms); 0 until calls were measured: until then any
   * answer not back is as late as can be (the pacer waits for it a window at most).
   */
  get slowestRoundTripMs(): number {
    if (!this.readings.full) return 0;
    return 2 * Math.max(...this.readings.values);
  }

  /** Whether the margin is measured yet (enough calls seen). */
  get earned(): boolean {
    return this.measured !== undefined;
  }

  /**
   * How late after its slot the pacer would let a call go, as far as it can tell (whether it
   * went or not): every slot reserved.
   */
  recordLateness(lateMs: number): void {
    if (Number.isFinite(lateMs)) this.lateness.add(lateMs);
  }

  /** One call that went, answered. */
  record(call: PacedCallTimes): void {
    if (this.widened > 0) this.widened -= 1;
    const reading = (call.answeredAt - call.wentAt) / 2;
    if (!Number.isFinite(reading)) return;
    this.readings.add(reading);
    if (!this.readings.full || !this.lateness.full) return;
    this.measured = this.choose(this.readings.spread());
  }

  /**
   * The allowance for lateness that spaces calls least, with the service's jitter: a wider one
   * widens every window by as much; a narrower one moves more calls to later (a call that misses
   * its slot goes when it is ready, and the slots after it follow it by as much).
   */
  private choose(serviceMs: number): { marginMs: number; allowedLateMs: number } {
    const late = [...this.lateness.values].sort((a, b) => a - b);
    const n = late.length;
    // Lateness is read against this host's usual round trips: the earliest is the zero.
    const zero = Math.min(0, late[0]!);
    // Lateness beyond each allowance, summed from the latest down.
    let beyond = 0;
    let best = {
      marginMs: this.maxMs,
      allowedLateMs: late.at(-1)!,
      cost: Number.POSITIVE_INFINITY,
    };
    for (let i = n - 1; i >= 0; i -= 1) {
      const allowed = Math.max(MIN_ALLOWED_LATE_MS, late[i]!);
      const marginMs = Math.max(FLOOR_MS, Math.ceil(allowed - zero + serviceMs));
      const cost = marginMs + beyond / n;
      if (marginMs <= this.maxMs && cost <= best.cost)
        best = { marginMs, allowedLateMs: allowed, cost };
      beyond += late[i]! - zero;
    }
    return { marginMs: best.marginMs, allowedLateMs: best.allowedLateMs };
  }
}
