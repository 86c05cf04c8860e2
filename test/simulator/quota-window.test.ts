import { describe, expect, it } from 'vitest';
import { quotaWindow } from '../../src/simulator/access/quota-window.js';

const iso = (ms: number) => new Date(ms).toISOString();
const at = (text: string) => Date.parse(text);

describe('quotaWindow', () => {
  it('counts UTC days from UTC midnight and months from the 1st', () => {
    const w = quotaWindow(at('2024-07-01T12:34:00Z'), 'UTC');
    expect(w.day).toBe('2024-07-01');
    expect(iso(w.dayStartMs)).toBe('2024-07-01T00:00:00.000Z');
    expect(iso(w.dayEndMs)).toBe('2024-07-02T00:00:00.000Z');
    expect(w.month).toBe('2024-07');
    expect(iso(w.monthStartMs)).toBe('2024-07-01T00:00:00.000Z');
    expect(iso(w.monthEndMs)).toBe('2024-08-01T00:00:00.000Z');
  });

  it('ends months on the calendar month, February 2024 after 29 days', () => {
    const w = quotaWindow(at('2024-02-15T00:00:00Z'), 'UTC');
    expect(w.monthEndMs - w.monthStartMs).toBe(29 * 86_400_000);
    expect(iso(w.monthEndMs)).toBe('2024-03-01T00:00:00.000Z');
  });

  it('resets at local midnight in a provider time zone: one instant, two days', () => {
    const instant = at('2024-07-01T22:30:00Z');
    expect(quotaWindow(instant, 'UTC').day).toBe('2024-07-01');
    const berlin = quotaWindow(instant, 'Europe/Berlin');
    expect(berlin.day).toBe('2024-07-02');
    expect(iso(berlin.dayStartMs)).toBe('2024-07-01T22:00:00.000Z');
    expect(iso(berlin.dayEndMs)).toBe('2024-07-02T22:00:00.000Z');
    // Half an hour earlier is still Berlin's 1 July.
    expect(quotaWindow(at('2024-07-01T21:59:59.999Z'), 'Europe/Berlin').day).toBe('2024-07-01');
  });

  it('starts a local month before UTC does east of Greenwich, after it west', () => {
    const auckland = quotaWindow(at('2024-07-31T12:00:00Z'), 'Pacific/Auckland');
    expect(auckland.month).toBe('2024-08');
    expect(iso(auckland.monthStartMs)).toBe('2024-07-31T12:00:00.000Z');
    const newYork = quotaWindow(at('2024-08-01T03:00:00Z'), 'America/New_York');
    expect(newYork.month).toBe('2024-07');
    expect(iso(newYork.monthEndMs)).toBe('2024-08-01T04:00:00.000Z');
  });

  it('has a 23-hour day and a 25-hour day across daylight saving changes', () => {
    const spring = quotaWindow(at('2024-03-10T12:00:00Z'), 'America/New_York');
    expect(spring.dayEndMs - spring.dayStartMs).toBe(23 * 3_600_000);
    const autumn = quotaWindow(at('2024-10-27T12:00:00Z'), 'Europe/Berlin');
    expect(autumn.dayEndMs - autumn.dayStartMs).toBe(25 * 3_600_000);
  });
});
