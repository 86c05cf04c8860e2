import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RateLimitRule } from '../config/rate-limit.js';
import type { CallSlots } from '../queue/call-slots.js';

/** `promise`, or `signal`'s reason once it is aborted, whichever comes first. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** The longest window and the most calls per window the pacer spaces; longer rules stay fixed windows. */
const MAX_PACED_WINDOW_MS = 60_000;
const MAX_PACED_CALLS = 10_000;
/**
 * Slots a call lets go for lateness before it goes anyway: a machine too loaded to keep any slot
 * risks a 429 (every worker then pauses, nothing is lost) rather than never calling.
 */
const MAX_MISSED = 8;

/**
 * Spaces the calls of the tightest rate-limit rule over every worker of every host, at the moment
 * of each call: a call reserves a slot (`CallSlots`, on the backend's clock) such that no window
 * of the rule's length plus a margin holds more than `max` slots, waits for it, and goes.
 *
 * Why at the call and not at the job's start (BullMQ's limiter): the service counts a call when
 * it arrives, and both sides count fixed windows opened by a first call. Counted at the job's
 * start, a call arrives after the claim of its chunk, a transaction whose time a loaded machine
 * stretches unevenly, and a window needs a tenth of its length as margin (91 % of the rate at
 * best, and on the Postgres queue backend still 429s under load). Counted at the call, only the
 * time from the reservation to the request is uncertain — and it is bounded: a call that would
 * leave more than half the margin after its slot (a late timer, a slow round trip to the
 * backend beyond this host's usual one) is not made; it reserves a new slot. One more round trip
 * to the backend just before the call checks that this host still reaches it as fast as usual:
 * a host cut off while it waited for its slot does not send a call into the cut, to arrive when
 * the link is back and out of its slot. No window of the
 * service then holds more than `max` calls as long as the calls' network delays to the service
 * differ by less than half the margin, a thirtieth of the window (20 ms at least): 97 % of the
 * rate at most. Hosts far apart in round trips to the backend or to the service need a wider
 * margin than this; they have one in ENVDATA_RATE_LIMIT itself (a lower rate).
 */
export class CallPacer {
  /** The rule's window plus the margin, in milliseconds. */
  readonly windowMs: number;
  /** How late after its slot a call may still go. */
  readonly allowedLateMs: number;
  private readonly key: string;

  private constructor(
    private readonly slots: CallSlots,
    readonly rule: RateLimitRule,
  ) {
    const margin = Math.max(20, Math.ceil(rule.durationMs / 30));
    this.windowMs = rule.durationMs + margin;
    this.allowedLateMs = Math.floor(margin / 2);
    this.key = `${rule.max}/${rule.durationMs}ms`;
  }

  /** A pacer for `rule` when it can be paced (a window up to a minute), else `undefined`. */
  static for(slots: CallSlots, rule: RateLimitRule | undefined): CallPacer | undefined {
    if (rule === undefined) return undefined;
    if (rule.durationMs > MAX_PACED_WINDOW_MS || rule.max > MAX_PACED_CALLS) return undefined;
    return new CallPacer(slots, rule);
  }

  /**
   * Resolves when this process may make one call now. Returns how many slots it reserved and
   * let go because it would have been late (0 in the common case). Rejects with `signal`'s
   * reason as soon as it is aborted (the worker is stopping: a backend that does not answer must
   * not hold it), and with the backend's error when the backend refuses.
   */
  async acquire(signal?: AbortSignal): Promise<number> {
    for (let missed = 0; ; missed += 1) {
      const { waitMs, askedAt, answeredAt } = await unlessAborted(
        this.slots.reserve(this.key, this.rule.max, this.windowMs),
        signal,
      );
      this.fastestReservation = Math.min(answeredAt - askedAt, this.fastestReservation + 0.5);
      // A slot now needs no second look: the reservation's own round trip was the last news of
      // the link. A slot later is waited for, and the link checked again just before the call:
      // still reaching the backend as fast as usual? (Not after a cut of this host's link.)
      let late = answeredAt - askedAt - this.fastestReservation;
      if (waitMs > 0) {
        // The backend read its clock after `askedAt`: waiting until `answeredAt + waitMs` never
        // goes before the slot.
        await sleep(Math.max(0, answeredAt + waitMs - performance.now()), undefined, { signal });
        const check = await unlessAborted(this.slots.roundTrip(), signal);
        this.fastestCheck = Math.min(check.answeredAt - check.askedAt, this.fastestCheck + 0.5);
        // How late after the slot the call would go, as far as this process can tell: the round
        // trips beyond this host's usual ones count as late (the clock may have been read early
        // in the first), the usual ones do not (they delay every call of this host alike).
        late = check.answeredAt - (askedAt + waitMs) - this.fastestReservation - this.fastestCheck;
      }
      if (late <= this.allowedLateMs || missed >= MAX_MISSED) return missed;
    }
  }

  /** This host's fastest recent round trips to the backend (minimums rising 0.5 ms a call). */
  private fastestReservation = Number.POSITIVE_INFINITY;
  private fastestCheck = Number.POSITIVE_INFINITY;
}
