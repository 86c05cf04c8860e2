import { describe, expect, it } from 'vitest';
import { QuotaClock } from '../../src/simulator/access/quota-clock.js';

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

    clock.set(2, false);
    real += 1_000; // half a short day
    expect(iso(clock.nowMs())).toBe('2024-07-02T00:00:05.000Z');
    expect(clock.realMsUntil(at('2024-07-03T00:00:00Z'), true)).toBeCloseTo(2_000 - 5 / 43.2, 6);

    // A new frozen "now" restarts the quota clock there.
    simulator = at('2025-01-01T00:00:00Z');
    clock.set(2, true);
    expect(iso(clock.nowMs())).toBe('2025-01-01T00:00:00.000Z');
  });
});
