import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/service/parse-retry-after.js';

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
});
