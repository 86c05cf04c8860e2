import { describe, expect, it } from 'vitest';
import { quotaInstant, realMsUntilQuota } from '../../src/windows/quota-instant.js';
import { quotaWindow } from '../../src/windows/quota-window.js';

const iso = (ms: number) => new Date(ms).toISOString();

describe('quotaInstant', () => {
  it('is the real instant with real days', () => {
    expect(quotaInstant(1_795_000_000_123, 86_400)).toBe(1_795_000_000_123);
  });

  it('begins a short day at each whole multiple of its seconds since the epoch, on a calendar day', () => {
    const at = 1_795_000_002_000; // a multiple of 2 s
    expect(iso(quotaInstant(at, 2)).slice(11)).toBe('00:00:00.000Z');
    expect(iso(quotaInstant(at + 1_000, 2)).slice(11)).toBe('12:00:00.000Z');
    const next = quotaWindow(quotaInstant(at + 1_999, 2), 'UTC');
    expect(quotaWindow(quotaInstant(at + 2_000, 2), 'UTC').dayStartMs).toBe(next.dayEndMs);
  });

  it('gives months their calendar days: a short July lasts 31 short days', () => {
    const day = 3;
    // Walk short days until a July begins, then count the days to August.
    let real = 1_795_000_002_000 - (1_795_000_002_000 % (day * 1_000));
    while (!quotaWindow(quotaInstant(real, day), 'UTC').day.endsWith('-07-01')) real += day * 1_000;
    const july = quotaWindow(quotaInstant(real, day), 'UTC');
    expect(realMsUntilQuota(july.monthEndMs, real, day)).toBe(31 * day * 1_000);
  });

  it('counts the real milliseconds to a reset on the short clock', () => {
    const at = 1_795_000_002_500; // a quarter into a 2 s day
    const w = quotaWindow(quotaInstant(at, 2), 'UTC');
    expect(realMsUntilQuota(w.dayEndMs, at, 2)).toBe(1_500);
    expect(realMsUntilQuota(w.dayStartMs, at, 2)).toBe(0);
  });
});
