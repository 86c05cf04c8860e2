import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { admissionStores } from '../../src/admission/admission-stores.js';
import { CallPacer } from '../../src/admission/call-pacer.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';

// The call slots live beside the queue: a Redis list, or envdata.call_pace on the postgres backend.
const fx = useBackfillFixture();
let rules = 0;
/** A rule no earlier test reserved slots of. */
const freshRule = () => `test-${process.pid}-${Date.now()}-${(rules += 1)}`;

describe('call slots', () => {
  it('give the first max reservations now and space the rest a window apart, across connections', async () => {
    const mine = admissionStores(fx.app.queues).windows;
    const other = admissionStores(fx.newApp().queues).windows;
    const rule = freshRule();
    // A window far longer than the 16 reservations take, however loaded the machine: none of them
    // may see the first ones' window end (at 300 ms, a slow run gave a fifth caller a free slot).
    const [max, windowMs] = [4, 10_000];
    const reservations = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const { waitMs, askedAt, answeredAt } = await (i % 2 === 0 ? mine : other).reserve(
          rule,
          max,
          windowMs,
        );
        return { wait: waitMs, slot: answeredAt + waitMs, roundTrip: answeredAt - askedAt };
      }),
    );
    expect(reservations.filter((r) => r.wait === 0)).toHaveLength(max);
    const slots = reservations.map((r) => r.slot).sort((a, b) => a - b);
    const slack = Math.max(...reservations.map((r) => r.roundTrip));
    for (let i = 0; i + max < slots.length; i += 1) {
      expect(slots[i + max]! - slots[i]!).toBeGreaterThanOrEqual(windowMs - slack);
    }
  });
});

describe('call slots given back and moved', () => {
  it('give a slot back: the window holds one call fewer, and the next caller goes now', async () => {
    const slots = admissionStores(fx.app.queues).windows;
    const rule = freshRule();
    const [max, windowMs] = [3, 60_000];
    const taken = [];
    for (let i = 0; i < max; i += 1) taken.push(await slots.reserve(rule, max, windowMs));
    expect(taken.map((r) => r.waitMs)).toEqual([0, 0, 0]);
    expect((await slots.reserve(rule, max, windowMs, { horizonMs: 1_000 })).slot).toBeUndefined();
    await slots.release(rule, taken[1]!.slot!);
    const again = await slots.reserve(rule, max, windowMs, { horizonMs: 1_000 });
    expect(again.waitMs).toBe(0);
    // Full again: the slot after is a window after the first.
    const full = await slots.reserve(rule, max, windowMs, { horizonMs: 1_000 });
    expect(full.slot).toBeUndefined();
    expect(full.waitMs).toBeGreaterThan(windowMs - 5_000);
  });

  it('reserve nothing beyond the horizon: a caller told to wait holds no slot', async () => {
    const slots = admissionStores(fx.newApp().queues).windows;
    const rule = freshRule();
    const [max, windowMs] = [2, 60_000];
    await slots.reserve(rule, max, windowMs);
    await slots.reserve(rule, max, windowMs);
    for (let i = 0; i < 5; i += 1) {
      const told = await slots.reserve(rule, max, windowMs, { horizonMs: 100 });
      expect(told.slot).toBeUndefined();
    }
    // Without a horizon the next slot is the third: a window after the first, not six.
    const third = await slots.reserve(rule, max, windowMs);
    expect(third.waitMs).toBeGreaterThan(windowMs - 5_000);
    expect(third.waitMs).toBeLessThanOrEqual(windowMs);
  });

  it('space a new slot from the latest', async () => {
    const slots = admissionStores(fx.app.queues).windows;
    const rule = freshRule();
    const first = await slots.reserve(rule, 100, 60_000, { spacingMs: 5_000 });
    const second = await slots.reserve(rule, 100, 60_000, { spacingMs: 5_000 });
    expect(second.slot! - first.slot!).toBe(5_000);
  });

  it('move a missed slot to now, keeping the window at its calls', async () => {
    const slots = admissionStores(fx.app.queues).windows;
    const rule = freshRule();
    const [max, windowMs] = [2, 5_000];
    const first = await slots.reserve(rule, max, windowMs, { horizonMs: 10_000 });
    const second = await slots.reserve(rule, max, windowMs, { horizonMs: 10_000 });
    const third = await slots.reserve(rule, max, windowMs, { horizonMs: 10_000 });
    expect(third.slot! - first.slot!).toBe(windowMs);
    // The first is missed; the slot a window after it is taken: it goes back, and its caller
    // gets the next slot, a window after the second.
    const moved = await slots.reserve(rule, max, windowMs, {
      horizonMs: 10_000,
      moving: first.slot!,
    });
    expect(moved.slot! - second.slot!).toBe(windowMs);

    // With nothing reserved a window after it, a missed slot moves to now.
    const other = freshRule();
    const a = await slots.reserve(other, max, 60_000, { horizonMs: 1_000 });
    await slots.reserve(other, max, 60_000, { horizonMs: 1_000 });
    const now = await slots.reserve(other, max, 60_000, { horizonMs: 1_000, moving: a.slot! });
    expect(now.waitMs).toBe(0);
    expect(now.slot!).toBeGreaterThanOrEqual(a.slot!);
    // Still two slots in the window: the next caller is told to wait a window.
    expect((await slots.reserve(other, max, 60_000, { horizonMs: 1_000 })).slot).toBeUndefined();
  });
});

describe('the call pacer', () => {
  it('lets no window of the rule hold more than its calls, whoever asks', async () => {
    const rule = { max: 5, durationMs: 250, label: '5/250ms' };
    // Two apps, two connections: one rule, so one set of slots.
    const shared = CallPacer.for(admissionStores(fx.app.queues).windows, rule)!;
    const again = CallPacer.for(admissionStores(fx.newApp().queues).windows, rule)!;
    const released: number[] = [];
    const stalls = monitorEventLoopDelay({ resolution: 1 });
    stalls.enable();
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        (await (i % 2 === 0 ? shared : again).acquire()).answered();
        released.push(performance.now());
      }),
    );
    stalls.disable();
    released.sort((a, b) => a - b);
    // Slots are a window plus the margin (20 ms here until measured) apart; a call goes up to
    // the margin's allowance after its slot, and each process's usual round trips to the
    // backend shift its calls alike: seen from here, a window less that allowance. Less, too,
    // this process's longest stall: a loaded machine that deschedules it between a call going
    // and the clock read here makes that call look late (by 1.5 ms beyond the allowance once, in
    // a CI run with both legs on two cores); a pacer letting a sixth call into a window is off
    // by a window's share, not by a stall.
    const allowance = shared.allowedLateMs;
    const stall = stalls.max / 1e6;
    for (let i = 0; i + rule.max < released.length; i += 1) {
      expect(
        released[i + rule.max]! - released[i]!,
        `calls ${i} and ${i + rule.max}, allowance ${allowance} ms, longest stall ${stall} ms`,
      ).toBeGreaterThanOrEqual(rule.durationMs - allowance - stall);
    }
  });

  it('gives back the slot of a call not made after all: the next call takes it', async () => {
    // One call a minute: a second call would wait for the next minute, but for the first's
    // slot given back (the quota refused that call once its slot came).
    const rule = { max: 1, durationMs: 60_000, label: '1/min' };
    const pacer = CallPacer.for(admissionStores(fx.app.queues).windows, rule)!;
    let asked = 0;
    const refuse = async () => ((asked += 1), false);
    expect(await pacer.acquire(undefined, refuse)).toBeUndefined();
    expect(asked).toBe(1);
    // Stops waiting (and fails) long before the minute a slot not given back would cost.
    const next = await pacer.acquire(AbortSignal.timeout(20_000));
    next.answered();
    expect(next.missed).toBe(0);
  });

  it('counts a slow ask before the call as lateness: the call moves to a later slot', async () => {
    // Until measured, a call may go 17 ms after its slot (half of the 34 ms margin).
    const rule = { max: 2, durationMs: 1_000, label: '2/s' };
    const pacer = CallPacer.for(admissionStores(fx.app.queues).windows, rule)!;
    // A quick ask first: this host's usual time for it is next to nothing.
    const quick = await pacer.acquire(undefined, async () => true);
    quick!.answered();
    expect(quick!.missed).toBe(0);
    // The quota's backend answers 150 ms late: the call would reach the service that late into
    // its slot, so the slot moves to now and the call goes once that is checked; asked once.
    let asked = 0;
    const slow = async () => {
      asked += 1;
      await sleep(150);
      return true;
    };
    const moved = await pacer.acquire(undefined, slow);
    moved!.answered();
    expect(moved!.missed).toBe(1);
    expect(asked).toBe(1);
  });

  it('holds a call until its peer a window back was read, when that answer came late', async () => {
    const rule = { max: 2, durationMs: 200, label: '2/200ms' };
    const pacer = CallPacer.for(admissionStores(fx.app.queues).windows, rule)!;
    // Answered at once: the fastest round trip is next to nothing.
    (await pacer.acquire()).answered();
    (await pacer.acquire()).answered();
    const third = await pacer.acquire();
    const fourth = await pacer.acquire();
    // The service stalls: the third call's answer comes 300 ms late, past its next slot.
    await sleep(300);
    third.answered();
    const thirdAnsweredAt = performance.now();
    fourth.answered();
    await pacer.acquire();
    // Read by its answer at the latest (less half the fastest round trip, which rises 0.5 ms a
    // call: 2 ms at most here): the fifth goes a window after that, not at its slot.
    expect(performance.now() - thirdAnsweredAt).toBeGreaterThanOrEqual(rule.durationMs - 2);
  });

  it('waits for a peer answer later than any recent one: a stall, not a slow service', async () => {
    const rule = { max: 10, durationMs: 100, label: '10/100ms' };
    const pacer = CallPacer.for(admissionStores(fx.app.queues).windows, rule)!;
    // Enough calls answered at once to know the slowest round trip: next to nothing.
    for (let i = 0; i < 130; i += 1) (await pacer.acquire()).answered();
    const stalled = await pacer.acquire();
    for (let i = 0; i < rule.max - 1; i += 1) (await pacer.acquire()).answered();
    let stalledAnsweredAt = 0;
    const answerLate = sleep(100).then(() => {
      stalledAnsweredAt = performance.now();
      stalled.answered();
    });
    // Its peer is the stalled call, overdue: it waits for that answer, then a window after it.
    await pacer.acquire();
    await answerLate;
    expect(stalledAnsweredAt).toBeGreaterThan(0);
    expect(performance.now() - stalledAnsweredAt).toBeGreaterThanOrEqual(rule.durationMs - 2);
  });

  it('earns a narrower margin from the calls it measures', async () => {
    const rule = { max: 50, durationMs: 1_000, label: '50/s' };
    const pacer = CallPacer.for(admissionStores(fx.app.queues).windows, rule)!;
    expect(pacer.margin.earned).toBe(false);
    // Calls answered at once: what is left is the pacer's own lateness on this host.
    for (let i = 0; i < 130; i += 1) (await pacer.acquire()).answered();
    expect(pacer.margin.earned).toBe(true);
    expect(pacer.margin.marginMs).toBeGreaterThanOrEqual(3);
    expect(pacer.margin.marginMs).toBeLessThanOrEqual(pacer.margin.maxMs);
  });

  it('paces only rules of a minute or less', () => {
    const slots = admissionStores(fx.app.queues).windows;
    expect(CallPacer.for(slots, undefined)).toBeUndefined();
    expect(CallPacer.for(slots, { max: 1000, durationMs: 3_600_000, label: '1000/h' })).toBe(
      undefined,
    );
    const pacer = CallPacer.for(slots, { max: 20, durationMs: 1_000, label: '20/s' })!;
    // Until calls measured the margin: the former fixed one, or the allowance and this process's
    // longest recent stall when more (a loaded machine), up to a tenth of the window.
    expect(pacer.margin.initialMs).toBe(34);
    const margin = pacer.windowMs - 1_000;
    expect(margin).toBeGreaterThanOrEqual(34);
    expect(margin).toBeLessThanOrEqual(100);
    expect(pacer.allowedLateMs).toBe(17);
    expect(pacer.horizonMs).toBe(500);
  });
});
