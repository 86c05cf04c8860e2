import { describe, expect, it } from 'vitest';
import { parseRetryAfter, readRetryAfter } from '../../src/service/parse-retry-after.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('parseRetryAfter', () => {
  it.each([
    ['120', 120_000],
    [' 5 ', 5_000],
    [['7', '9'], 7_000],
    ['Thu, 01 Jan 2026 00:00:10 GMT', 10_000],
  ] as const)('reads %j as %i ms', (header, ms) => {
    expect(parseRetryAfter(header, NOW)).toBe(ms);
  });

  it.each([
    [undefined],
    [''],
    ['0'],
    ['-5'],
    ['1.5'],
    ['soon'],
    ['2026-01-01T00:00:10Z'],
    ['Wed, 31 Dec 2025 23:59:00 GMT'],
  ])('gives no wait for %j (absent, zero, unreadable or past)', (header) => {
    expect(parseRetryAfter(header, NOW)).toBeUndefined();
  });

  it('believes a wait of up to a day (a daily quota resets within one)', () => {
    expect(parseRetryAfter('86400', NOW)).toBe(86_400_000);
    expect(parseRetryAfter('Fri, 02 Jan 2026 00:00:00 GMT', NOW)).toBe(86_400_000);
  });

  it.each([
    ['86401'],
    ['999999999'],
    ['99999999999999999999999'],
    ['Fri, 01 Jan 2100 00:00:00 GMT'],
    ['Fri, 02 Jan 2026 00:00:01 GMT'],
  ])('does not believe %j (more than a day): no wait, and says so', (header) => {
    expect(parseRetryAfter(header, NOW)).toBeUndefined();
    expect(readRetryAfter(header, NOW)).toEqual({ ms: undefined, implausible: header });
  });

  it('says nothing of a header that is merely absent or unreadable', () => {
    expect(readRetryAfter(undefined, NOW)).toEqual({ ms: undefined });
    expect(readRetryAfter('soon', NOW)).toEqual({ ms: undefined });
    expect(readRetryAfter('120', NOW)).toEqual({ ms: 120_000 });
  });
});
