import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { longestLoopStallMs } from '../../src/admission/loop-stalls.js';
import { PaceMargin } from '../../src/admission/pace-margin.js';

/** Feeds `calls` calls: each `late` ms after its slot, answered `roundTrip` ms after it went. */
function feed(
  margin: PaceMargin,
  calls: number,
  late: (i: number) => number,
  roundTrip: (i: number) => number,
): void {
  for (let i = 0; i < calls; i += 1) {
    margin.recordLateness(late(i));
    margin.record({ wentAt: 1_000 * i, answeredAt: 1_000 * i + roundTrip(i) });
  }
}

/** A call made on time, to its slot. */
const onTime = () => 0;
/** The same number of milliseconds for every call. */
const always = (ms: number) => () => ms;

describe('the pace margin', () => {
  it('is the former fixed thirtieth of the window until enough calls were measured', () => {
    const margin = new PaceMargin(1_000);
    expect([margin.marginMs, margin.allowedLateMs, margin.earned]).toEqual([34, 17, false]);
    feed(margin, 127, onTime, always(2));
    expect(margin.earned).toBe(false);
    feed(margin, 1, onTime, always(2));
    expect(margin.earned).toBe(true);
  });

  it('is a few milliseconds when calls go on time and the service answers evenly', () => {
    const margin = new PaceMargin(1_000);
    feed(
      margin,
      128,
      (i) => i % 3,
      (i) => 4 + (i % 5),
    );
    // Lateness 0 to 2 ms (2 at least is allowed), half round trips 2 to 4 ms: 2 + 2.
    expect(margin.marginMs).toBe(4);
    expect(margin.allowedLateMs).toBe(2);
  });

  it("widens with the service's jitter, which the pacer cannot bound", () => {
    const margin = new PaceMargin(1_000);
    feed(margin, 128, onTime, (i) => (i % 2 === 0 ? 2 : 42));
    // 2 ms allowed late, and half round trips 1 to 21 ms.
    expect(margin.marginMs).toBe(22);
  });

  it('lets a rare late call move rather than widen every window for it', () => {
    const margin = new PaceMargin(1_000);
    feed(margin, 128, (i) => (i % 64 === 0 ? 200 : 1), always(2));
    expect(margin.allowedLateMs).toBe(2);
    expect(margin.marginMs).toBe(3);
  });

  it('allows what most calls take when most are late, up to a tenth of the window', () => {
    const margin = new PaceMargin(1_000);
    feed(margin, 128, (i) => 10 + (i % 2), always(2));
    expect(margin.allowedLateMs).toBe(11);
    expect(margin.marginMs).toBe(11);
    feed(margin, 128, onTime, (i) => (i % 2 === 0 ? 2 : 2_000));
    expect(margin.marginMs).toBe(100);
  });

  it('forgets a burst of jitter once later calls no longer show it', () => {
    const margin = new PaceMargin(1_000);
    feed(margin, 128, onTime, (i) => (i % 2 === 0 ? 2 : 82));
    expect(margin.marginMs).toBe(42);
    feed(margin, 128, onTime, always(6));
    expect(margin.marginMs).toBe(3);
  });

  it('doubles after a 429 for the next calls, then is what it measures again', () => {
    const margin = new PaceMargin(1_000);
    feed(margin, 128, onTime, always(6));
    expect(margin.marginMs).toBe(3);
    margin.throttled();
    // At least the initial margin.
    expect(margin.marginMs).toBe(34);
    margin.throttled();
    expect(margin.marginMs).toBe(68);
    feed(margin, 127, onTime, always(6));
    expect(margin.marginMs).toBe(68);
    feed(margin, 1, onTime, always(6));
    expect(margin.marginMs).toBe(3);
  });

  it("takes this process's longest recent stall in until measured, up to a tenth of the window", () => {
    let stall = 40.2;
    const margin = new PaceMargin(1_000, () => stall);
    // Unmeasured: the allowance (17 ms) and the stall, more than the initial 34 ms.
    expect([margin.marginMs, margin.allowedLateMs]).toEqual([58, 17]);
    stall = 500;
    expect(margin.marginMs).toBe(100);
    stall = 0;
    expect(margin.marginMs).toBe(34);
    // Measured: what the calls show, stalls or not.
    stall = 40.2;
    feed(margin, 128, onTime, always(6));
    expect(margin.marginMs).toBe(3);
  });
});

describe("this process's longest stall", () => {
  it('reads a synchronous block of the event loop, once the monitor ran after it', async () => {
    longestLoopStallMs();
    await sleep(10);
    const blockedAt = performance.now();
    while (performance.now() - blockedAt < 60);
    // The monitor's next run reads the interval that held the block.
    await sleep(10);
    expect(longestLoopStallMs()).toBeGreaterThanOrEqual(55);
  });
});
