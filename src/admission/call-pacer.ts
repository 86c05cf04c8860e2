import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RateLimitRule } from '../config/rate-limit.js';
import type { WindowCounters } from './window-counters.js';
import { longestLoopStallMs } from './loop-stalls.js';
import { PaceMargin } from './pace-margin.js';

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
 * How far ahead slots are reserved, as a share of the rule's window: a call that missed its slot
 * by less than the rest of the window moves it to now at no cost to the rule (see `CallPacer`).
 */
const HORIZON_SHARE = 0.5;

/** A call this process made: when it went, and when its answer came once it did. */
interface SentCall {
  readonly wentAt: number;
  answeredAt?: number;
  /** Resolves when the answer comes. */
  readonly answer: Promise<void>;
}

/** A call the pacer let go: tell it when the answer came (`answered`), to measure the margin. */
export interface PacedCall {
  /** Slots it missed (moved to now) before this one went (0 in the common case). */
  readonly missed: number;
  /** The call's answer or failure came back now. Once; later calls do nothing. */
  answered(): void;
  /**
   * The service answered it 429, too many calls (not a spent quota): the margin was too narrow
   * for the service's reading of this call. It widens at once (`PaceMargin.throttled`).
   */
  throttled(): void;
}

/**
 * Spaces the calls of the tightest rate-limit rule over every worker of every host, at the moment
 * of each call: a call reserves a slot (`WindowCounters.reserve`, on the backend's clock) such
 * that no window of the rule's length plus a margin holds more than `max` slots, waits for it,
 * and goes.
 *
 * Why at the call and not at the job's start (BullMQ's limiter): the service counts a call when
 * it arrives, and both sides count fixed windows opened by a first call. Counted at the job's
 * start, a call arrives after the claim of its chunk, a transaction whose time a loaded machine
 * stretches unevenly, and a window needs a tenth of its length as margin (91 % of the rate at
 * best, and on the Postgres queue backend still 429s under load). Counted at the call, only the
 * time from the slot to when the service counts the call is uncertain, and that is measured
 * (`PaceMargin`), not a fixed share of the window: a few milliseconds on a quiet host.
 *
 * What the pacer controls of that time it bounds: a call that would go more than the margin's
 * allowance after its slot (a late timer, a slow round trip to the backend beyond this host's
 * usual one) is not made then; it moves its slot to now and checks again. Moving costs the rule
 * nothing because slots are reserved at most half a window ahead (`HORIZON_SHARE`): the slot a
 * window after the missed one is not taken yet, so every window that holds now held the missed
 * slot. (Reserved further ahead, the next window's slots are taken and a missed slot is lost: a
 * window of the service then counts 19 calls where 20 were allowed.) A caller whose slot would be
 * beyond the horizon waits and asks again. One more round trip to the backend just before the
 * call checks that this host still reaches it as fast as usual: a host cut off while it waited
 * for its slot does not send a call into the cut, to arrive when the link is back and out of its
 * slot.
 *
 * Behind the margin, one guard needs no measure: a call does not go before a window has passed
 * since the answer to the call this process made `max` calls earlier (`afterItsPeer`). A stall
 * of the service or of this host longer than the margin then holds the next window's calls
 * instead of sending them into the stalled window.
 *
 * The margin is measured per process: hosts whose network delays to the service differ by more
 * than it (far apart) need a wider one; they have one in ENVDATA_RATE_LIMIT itself (a lower rate).
 */
export class CallPacer {
  /** How far apart the service may count calls a window apart, measured. */
  readonly margin: PaceMargin;
  private readonly key: string;

  private constructor(
    private readonly slots: WindowCounters,
    readonly rule: RateLimitRule,
  ) {
    this.margin = new PaceMargin(rule.durationMs, () => longestLoopStallMs());
    this.key = `${rule.max}/${rule.durationMs}ms`;
  }

  /** The rule's window plus the margin, in milliseconds. */
  get windowMs(): number {
    return this.rule.durationMs + this.margin.marginMs;
  }

  /** How late after its slot a call may still go: the margin's part for this process. */
  get allowedLateMs(): number {
    return this.margin.allowedLateMs;
  }

  /** How far ahead slots are reserved. */
  get horizonMs(): number {
    return Math.floor(this.rule.durationMs * HORIZON_SHARE);
  }

  /** A pacer for `rule` when it can be paced (a window up to a minute), else `undefined`. */
  static for(slots: WindowCounters, rule: RateLimitRule | undefined): CallPacer | undefined {
    if (rule === undefined) return undefined;
    if (rule.durationMs > MAX_PACED_WINDOW_MS || rule.max > MAX_PACED_CALLS) return undefined;
    return new CallPacer(slots, rule);
  }

  /**
   * Resolves when this process may make one call now; call `answered()` on the result when the
   * call's answer comes back. Rejects with `signal`'s reason as soon as it is aborted (the worker
   * is stopping: a backend that does not answer must not hold it), and with the backend's error
   * when the backend refuses. A slot reserved and not used is given back.
   *
   * `before`, when given, runs once the first slot has come and before the last look at how late
   * the call would go: what must be asked just before the call (the quota, the call budget, on
   * the backend), so that its round trip counts as lateness like any other, beyond this host's
   * usual one. Counted after the pacer let the call go, a slow one sent the call that much after
   * its slot, unseen (a 429 on the Postgres backend under load). It resolves whether the call is
   * made: `false`, and `acquire` resolves `undefined` once its slot is given back. It runs once
   * even when the slot then moves; if the wait is cut short after it, what it counted stays
   * counted (a call counted and not made: never one made and not counted).
   */
  acquire(signal?: AbortSignal): Promise<PacedCall>;
  acquire(
    signal: AbortSignal | undefined,
    before: () => Promise<boolean>,
  ): Promise<PacedCall | undefined>;
  async acquire(
    signal?: AbortSignal,
    before?: () => Promise<boolean>,
  ): Promise<PacedCall | undefined> {
    let moving: number | undefined;
    let ask = before;
    for (let missed = 0; ;) {
      const reservation = await unlessAborted(
        this.slots.reserve(this.key, this.rule.max, this.windowMs, {
          horizonMs: this.horizonMs,
          // Half a slot's share of the window apart: calls reach the service one by one (a
          // burst waits for connections and is read by the service in turn, each call later),
          // and still catch up after a moment without a caller ready.
          spacingMs: Math.floor(this.windowMs / this.rule.max / 2),
          ...(moving !== undefined && { moving }),
        }),
        signal,
      );
      const { waitMs, askedAt, answeredAt, slot } = reservation;
      if (slot === undefined) {
        // Beyond the horizon: ask again when the slot is within it, spread over a slot's share
        // of the window so that the callers waiting do not all ask at once.
        const spread = Math.random() * (this.rule.durationMs / this.rule.max);
        await sleep(Math.max(1, waitMs - this.horizonMs + spread), undefined, { signal });
        continue;
      }
      this.fastestReservation = Math.min(answeredAt - askedAt, this.fastestReservation + 0.5);
      let late: number;
      try {
        // The backend read its clock after `askedAt`: waiting until `answeredAt + waitMs`
        // never goes before the slot.
        if (waitMs > 0) {
          await sleep(Math.max(0, answeredAt + waitMs - performance.now()), undefined, { signal });
        }
        // This host's usual time for what is asked before the call: it delays every call of
        // this host alike, so only the time beyond it counts as late.
        let usualBefore = 0;
        if (ask !== undefined) {
          const asked = ask;
          ask = undefined;
          const startedAt = performance.now();
          const goes = await unlessAborted(asked(), signal);
          if (!goes) {
            // Back before `acquire` resolves: the next caller may take it.
            await this.giveBack(slot);
            return undefined;
          }
          const took = performance.now() - startedAt;
          this.fastestBefore = Math.min(took, this.fastestBefore + 0.5);
          usualBefore = this.fastestBefore;
        }
        if (waitMs > 0) {
          // A slot later was waited for: the link is checked again just before the call, still
          // reaching the backend as fast as usual? (Not after a cut of this host's link.)
          const check = await unlessAborted(this.slots.roundTrip(), signal);
          this.fastestCheck = Math.min(check.answeredAt - check.askedAt, this.fastestCheck + 0.5);
          // How late after the slot the call would go, as far as this process can tell: the
          // round trips beyond this host's usual ones count as late (the clock may have been
          // read early in the first), the usual ones do not (they delay every call of this host
          // alike).
          late =
            check.answeredAt -
            (askedAt + waitMs) -
            this.fastestReservation -
            this.fastestCheck -
            usualBefore;
        } else {
          // A slot now needs no second look: the reservation's own round trip was the last
          // news of the link.
          late = performance.now() - askedAt - this.fastestReservation - usualBefore;
        }
      } catch (error) {
        void this.giveBack(slot);
        throw error;
      }
      this.margin.recordLateness(late);
      if (late <= this.allowedLateMs || missed >= MAX_MISSED) {
        // Its place among this process's calls, taken now: callers holding at once each wait
        // for a peer of their own.
        const place = this.sent;
        this.sent += 1;
        try {
          await this.afterItsPeer(place, signal);
        } catch (error) {
          void this.giveBack(slot);
          throw error;
        }
        return this.went(place, missed);
      }
      missed += 1;
      moving = slot;
    }
  }

  /**
   * Waits, when it must, until a window has passed since the answer to this process's call `max`
   * calls back. The service read that call before it answered, and reads this one after it goes:
   * so the service sees them more than a window apart, whatever the clocks, the margin measured
   * so far or a stall of the service or of this host. (Reading the earlier call half its fastest
   * round trip before its answer, as NTP would, let a 429 through in every bench run, each just
   * after the margin was earned; waiting for the whole answer costs nothing there: 99.5–99.7 % of
   * R with 0 × 429 in `npm run bench:backfill -- --parts 2`.) An answer not back yet is waited
   * for when it is later than any recent one (a stall, not a slow service), for a window at most.
   */
  private async afterItsPeer(place: number, signal: AbortSignal | undefined): Promise<void> {
    const peer = this.recent[place % this.rule.max];
    if (peer === undefined) return;
    if (peer.answeredAt === undefined) {
      const overdue = peer.wentAt + this.margin.slowestRoundTripMs - performance.now();
      if (overdue > 0) return;
      await Promise.race([
        peer.answer,
        sleep(this.rule.durationMs, undefined, { signal, ref: false }),
      ]);
      if (peer.answeredAt === undefined) return;
    }
    const hold = peer.answeredAt + this.rule.durationMs - performance.now();
    if (hold > 0) await sleep(hold, undefined, { signal });
  }

  /** The call goes now: its answer, when it comes, is a measure of the margin. */
  private went(place: number, missed: number): PacedCall {
    const wentAt = performance.now();
    let answered = () => {};
    const call: SentCall = {
      wentAt,
      answer: new Promise<void>((resolve) => (answered = resolve)),
    };
    this.recent[place % this.rule.max] = call;
    let settled = false;
    return {
      missed,
      answered: () => {
        if (settled) return;
        settled = true;
        call.answeredAt = performance.now();
        answered();
        this.margin.record({ wentAt, answeredAt: call.answeredAt });
      },
      throttled: () => this.margin.throttled(),
    };
  }

  /** This process's last `max` calls, by their place (`sent` when they went) modulo `max`. */
  private readonly recent: SentCall[] = [];
  private sent = 0;

  /** Gives a slot back without waiting (stopping, or the backend is failing: best effort). */
  private giveBack(slot: number): Promise<void> {
    return this.slots.release(this.key, slot).catch(() => undefined);
  }

  /** This host's fastest recent round trips to the backend (minimums rising 0.5 ms a call). */
  private fastestReservation = Number.POSITIVE_INFINITY;
  private fastestCheck = Number.POSITIVE_INFINITY;
  /** And of what is asked before a call (`acquire`'s `before`). */
  private fastestBefore = Number.POSITIVE_INFINITY;
}
