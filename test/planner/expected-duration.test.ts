import { describe, expect, it } from 'vitest';
import { parseRateLimits, type RateLimitRule } from '../../src/config/rate-limit.js';
import { expectedDuration, type AllowanceWindow } from '../../src/planner/expected-duration.js';
import { formatExpectedDuration } from '../../src/cli/format-expected-duration.js';

const rules = (text: string) => parseRateLimits(text) as RateLimitRule[];
const NOW = Date.parse('2026-11-28T21:00:00Z');
const MIDNIGHT = Date.parse('2026-11-29T00:00:00Z');
const DAY_MS = 86_400_000;
const day = (cap: number, used: number): AllowanceWindow => ({
  cap,
  used,
  resetsAtMs: MIDNIGHT,
  lengthMs: DAY_MS,
  name: 'the daily quota (ENVDATA_QUOTA)',
});

describe('expectedDuration', () => {
  it('is the rate alone when today’s allowance covers every call', () => {
    const d = expectedDuration({ calls: 600, rules: rules('10/s'), nowMs: NOW, day: day(1000, 0) });
    expect(d).toMatchObject({ ms: 60_000, coveredNow: 600, firstReset: undefined });
    expect(formatExpectedDuration(d, rules('10/s'), NOW)).toBe('expected duration: ~60 s at 10/s');
  });

  it('waits for the reset when today’s allowance is spent: not 0.067 day(s), a whole wait', () => {
    const d = expectedDuration({
      calls: 100,
      rules: rules('10/s'),
      nowMs: NOW,
      day: day(1500, 1500),
    });
    expect(d.coveredNow).toBe(0);
    expect(d.firstReset?.atMs).toBe(MIDNIGHT);
    // The 3 h to midnight, then 100 calls at 10/s.
    expect(d.ms).toBe(MIDNIGHT - NOW + 10_000);
    expect(formatExpectedDuration(d, rules('10/s'), NOW)).toBe(
      "expected duration: ~3 h 0 min (today's allowance covers 0 of 100 calls; the rest after the reset at 2026-11-29 00:00 UTC of the daily quota (ENVDATA_QUOTA); at 10/s)",
    );
  });

  it('takes what is left today, then a day per daily quota after each reset', () => {
    const d = expectedDuration({ calls: 2500, rules: [], nowMs: NOW, day: day(1000, 500) });
    expect(d.coveredNow).toBe(500);
    expect(d.resets).toBe(2);
    // 500 now, 1000 the next day, the last 1000 the day after: ends at its start.
    expect(d.ms).toBe(MIDNIGHT + DAY_MS - NOW);
  });

  it('waits for the month when its budget binds before the day', () => {
    const monthEnd = Date.parse('2026-12-01T00:00:00Z');
    const d = expectedDuration({
      calls: 50,
      rules: [],
      nowMs: NOW,
      day: day(1000, 0),
      month: { cap: 100, used: 80, resetsAtMs: monthEnd, lengthMs: 30 * DAY_MS, name: 'budget' },
    });
    expect(d).toMatchObject({ coveredNow: 20, firstReset: { atMs: monthEnd, name: 'budget' } });
    expect(d.ms).toBe(monthEnd - NOW);
  });

  it('is never for a cap of no call', () => {
    const d = expectedDuration({ calls: 5, rules: [], nowMs: NOW, day: day(0, 0) });
    expect(d.ms).toBeUndefined();
  });
});
