import { describe, expect, it } from 'vitest';
import { QuotaClock } from '../../src/simulator/access/quota-clock.js';
import { quotaInstant } from '../../src/windows/quota-instant.js';

const iso = (ms: number) => new Date(ms).toISOString();
const at = (text: string) => Date.parse(text);

describe('QuotaClock', () => {
  it('reads the simulator clock with real days, and runs 86400/daySeconds times faster with short ones', () => {
    let real = 1_000_000;
    let simulator = at('2024-07-01T12:00:00Z');
    const clock = new QuotaClock(
      () => simulator,
      () => real,
    );
    clock.set(86_400, true);
    simulator += 5_000;
    expect(clock.nowMs()).toBe(at('2024-07-01T12:00:05Z'));
    expect(clock.realMsUntil(at('2024-07-02T00:00:00Z'), true)).toBeNull();

    // Set a quarter into a real short day of 2 s (1_000_500 = 500 × 2000 + 500): the quota
    // day is the simulator's date, a quarter through.
    real += 500;
    clock.set(2, false);
    expect(iso(clock.nowMs())).toBe('2024-07-01T06:00:00.000Z');
    real += 1_000;
    expect(iso(clock.nowMs())).toBe('2024-07-01T18:00:00.000Z');
    expect(clock.realMsUntil(at('2024-07-02T00:00:00Z'), true)).toBeCloseTo(500, 6);

    // A new frozen "now" restarts the quota clock on its date, at the same time of day.
    simulator = at('2025-01-01T00:00:00Z');
    clock.set(2, true);
    expect(iso(clock.nowMs())).toBe('2025-01-01T18:00:00.000Z');
  });

  it('begins its short days where envdata’s quota days begin: at whole multiples of daySeconds since the epoch', () => {
    for (const [daySeconds, realMs] of [
      [4, 1_764_190_001_234],
      [3, 1_764_190_002_999],
      [60, 1_764_190_059_001],
    ] as const) {
      let real = realMs;
      const clock = new QuotaClock(
        () => at('2024-06-30T12:00:00Z'),
        () => real,
      );
      clock.set(daySeconds, true);
      // The time of day on both clocks is the same, whenever the day length was set.
      for (let step = 0; step < 5; step += 1) {
        real += 777;
        expect(clock.nowMs() % 86_400_000).toBeCloseTo(
          quotaInstant(real, daySeconds) % 86_400_000,
          3,
        );
      }
    }
  });
});
