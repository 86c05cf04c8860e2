import { describe, expect, it } from 'vitest';
import { explainPlan } from '../../src/planner/explain-plan.js';

const now = new Date('2026-11-22T17:30:00Z');
const request = (from: string, to: string, extra: { windowHours?: number } = {}) => ({
  datasets: ['pollen', 'weather'] as const,
  from: new Date(from),
  to: new Date(to),
  windowHours: extra.windowHours ?? 48,
  now,
});

describe('explainPlan says why a plan is smaller than the range asked for', () => {
  it('a range in the future', () => {
    expect(explainPlan(request('2030-01-01T00:00:00Z', '2030-02-01T00:00:00Z'), [])).toEqual([
      'nothing to fetch: the range starts after the last complete hour (2026-11-22 17:00 UTC) — history is only what has happened',
    ]);
  });

  it('pollen before its history starts, weather already held by the ledger', () => {
    expect(explainPlan(request('2014-01-01T00:00:00Z', '2015-01-01T00:00:00Z'), [])).toEqual([
      "pollen: nothing to fetch before 2016-01-01 00:00 UTC, where the service's pollen history starts",
      'weather: nothing to do — the ledger holds all of it',
    ]);
  });

  it('clipping at both ends, and a window longer than the service accepts', () => {
    const gaps = [
      {
        dataset: 'pollen' as const,
        locationId: 1,
        from: new Date('2016-01-01T00:00:00Z'),
        to: new Date('2016-02-01T00:00:00Z'),
      },
      {
        dataset: 'weather' as const,
        locationId: 1,
        from: new Date('2015-06-01T00:00:00Z'),
        to: new Date('2016-02-01T00:00:00Z'),
      },
    ];
    expect(
      explainPlan(
        request('2015-06-01T00:00:00Z', '2030-01-01T00:00:00Z', { windowHours: 999 }),
        gaps,
      ),
    ).toEqual([
      'the range is clipped at the last complete hour, 2026-11-22 17:00 UTC',
      "pollen: clipped to 2016-01-01 00:00 UTC, where the service's pollen history starts",
      '--window 999h is longer than the 48 h the service is known to accept; a longer request it refuses is split, so calls are estimated at 48 h',
    ]);
  });
});
