import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/lifecycle/backoff.js';

describe('backoffMs', () => {
  it('doubles the base per earlier failure, up to the cap', () => {
    const shape = { baseMs: 250, capMs: 5_000 };
    expect([0, 1, 2, 3, 4, 5, 16].map((times) => backoffMs(times, shape))).toEqual([
      250, 500, 1_000, 2_000, 4_000, 5_000, 5_000,
    ]);
  });

  it('stops doubling after maxDoublings, so a long outage cannot overflow it', () => {
    expect(backoffMs(12, { baseMs: 10 })).toBe(40_960);
    expect(backoffMs(10_000, { baseMs: 10 })).toBe(40_960);
    expect(backoffMs(10_000, { baseMs: 10, maxDoublings: 2 })).toBe(40);
  });

  it('jitters within 1 ± jitter of the wait, in whole milliseconds', () => {
    const shape = { baseMs: 1_000, jitter: 0.2 };
    expect(backoffMs(1, { ...shape, random: () => 0 })).toBe(1_600);
    expect(backoffMs(1, { ...shape, random: () => 0.5 })).toBe(2_000);
    expect(backoffMs(1, { ...shape, random: () => 0.999_999 })).toBe(2_400);
    expect(backoffMs(0, { baseMs: 3, jitter: 0.5, random: () => 0.3 })).toBe(2);
  });
});
