import { describe, expect, it } from 'vitest';
import { parseRateLimits, type RateLimitRule } from '../../src/config/rate-limit.js';
import { formatDuration } from '../../src/planner/estimate-plan.js';
import { formatPlanDuration } from '../../src/planner/format-plan-duration.js';

function rules(text: string): RateLimitRule[] {
  const parsed = parseRateLimits(text);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

describe('formatDuration', () => {
  it.each([
    [0, 'under a second'],
    [1, 'under a second'],
    [999, 'under a second'],
    [1000, '1 s'],
    [40_000, '40 s'],
    [12 * 60_000, '12 min'],
    [(3 * 24 + 4) * 3_600_000, '3 d 4 h'],
  ])('%d ms reads "%s"', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('formatPlanDuration', () => {
  it('says "under a second" for a plan that takes less, never "~0 s"', () => {
    expect(formatPlanDuration(1, rules('10/s'))).toBe('under a second at 10/s');
  });

  it('gives an approximate duration at the limits that bound it', () => {
    expect(formatPlanDuration(120_000, rules('10/s,50000/day'))).toBe('~2 min at 10/s, 50000/day');
  });

  it('without a rate limit says the service decides, rather than a duration of nothing', () => {
    expect(formatPlanDuration(0, rules('off'))).toBe(
      'no rate limit (ENVDATA_RATE_LIMIT=off): as fast as the service answers',
    );
  });
});
