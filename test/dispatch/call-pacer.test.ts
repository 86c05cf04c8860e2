import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { CallPacer } from '../../src/dispatch/call-pacer.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';

// The call slots live beside the queue: a Redis list, or envdata.call_pace on the postgres backend.
const fx = useBackfillFixture();
let rules = 0;
/** A rule no earlier test reserved slots of. */
const freshRule = () => `test-${process.pid}-${Date.now()}-${(rules += 1)}`;

describe('call slots', () => {
  it('give the first max reservations now and space the rest a window apart, across connections', async () => {
    const mine = fx.app.queues.callSlots();
    const other = fx.newApp().queues.callSlots();
    const rule = freshRule();
    const [max, windowMs] = [4, 300];
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

describe('the call pacer', () => {
  it('lets no window of the rule hold more than its calls, whoever asks', async () => {
    const rule = { max: 5, durationMs: 250, label: '5/250ms' };
    // Two apps, two connections: one rule, so one set of slots.
    const shared = CallPacer.for(fx.app.queues.callSlots(), rule)!;
    const again = CallPacer.for(fx.newApp().queues.callSlots(), rule)!;
    const released: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await (i % 2 === 0 ? shared : again).acquire();
        released.push(performance.now());
      }),
    );
    released.sort((a, b) => a - b);
    for (let i = 0; i + rule.max < released.length; i += 1) {
      expect(released[i + rule.max]! - released[i]!).toBeGreaterThanOrEqual(rule.durationMs);
    }
  });

  it('paces only rules of a minute or less', () => {
    const slots = fx.app.queues.callSlots();
    expect(CallPacer.for(slots, undefined)).toBeUndefined();
    expect(CallPacer.for(slots, { max: 1000, durationMs: 3_600_000, label: '1000/h' })).toBe(
      undefined,
    );
    const pacer = CallPacer.for(slots, { max: 20, durationMs: 1_000, label: '20/s' })!;
    expect(pacer.windowMs).toBe(1_034);
    expect(pacer.allowedLateMs).toBe(17);
  });
});
