import { describe, expect, it } from 'vitest';
import {
  afterAccepted,
  afterRefused,
  MAX_PROBES_PER_RUN,
  MAX_WINDOW_HOURS,
  nextWindow,
  pieceHoursAfterRefusal,
  settledWindow,
  UNKNOWN_WINDOW,
  type WindowKnowledge,
} from '../../src/windows/learned-window.js';
import { tileFrom } from '../../src/windows/tile-windows.js';

/** The windows asked for, one probe at a time, against a service accepting `max` hours. */
function learn(max: number, known: WindowKnowledge = UNKNOWN_WINDOW) {
  const asked: number[] = [];
  for (let i = 0; i < 20; i++) {
    const next = nextWindow(known);
    if (!next.probe) break;
    asked.push(next.hours);
    known = next.hours <= max ? afterAccepted(known, next.hours) : afterRefused(known, next.hours);
  }
  return { asked, known };
}

describe('nextWindow', () => {
  it('starts at 48 h, doubles while accepted, then steps to the whole-day middle of a refusal', () => {
    expect(learn(168)).toEqual({
      asked: [48, 96, 192, 144, 168],
      known: { acceptedHours: 168, refusedHours: 192 },
    });
  });

  it('at a 48 h service, probes twice beyond 48 h and settles at 48 h', () => {
    expect(learn(48)).toEqual({
      asked: [48, 96, 72],
      known: { acceptedHours: 48, refusedHours: 72 },
    });
  });

  it('never asks beyond 31 days, and stops there', () => {
    const { asked, known } = learn(10_000);
    expect(asked).toEqual([48, 96, 192, 384, MAX_WINDOW_HOURS]);
    expect(known.acceptedHours).toBe(MAX_WINDOW_HOURS);
    expect(nextWindow(known)).toEqual({ hours: MAX_WINDOW_HOURS, probe: false });
  });

  it('halves below the first refusal when nothing was accepted yet', () => {
    expect(learn(12)).toEqual({
      asked: [48, 24, 12],
      known: { acceptedHours: 12, refusedHours: 24 },
    });
  });

  it('learns 2 days, 7 days, 31 days within the probes one run may make; any other in two', () => {
    for (const max of [12, 48, 168, 744, 10_000]) {
      expect(learn(max).asked.length).toBeLessThanOrEqual(MAX_PROBES_PER_RUN);
    }
    for (const max of [2, 30, 72, 100, 336, 500, 743]) {
      expect(learn(max).asked.length).toBeLessThanOrEqual(2 * MAX_PROBES_PER_RUN);
    }
  });

  it('never asks for what was refused or more', () => {
    for (const max of [1, 5, 23, 47, 48, 50, 95, 169, 500]) {
      const { asked, known } = learn(max);
      expect(Math.max(...asked.filter((h) => h <= max))).toBe(known.acceptedHours);
      for (let i = 1; i < asked.length; i++) {
        const refusedBefore = asked.slice(0, i).filter((h) => h > max);
        for (const r of refusedBefore) expect(asked[i]).toBeLessThan(r);
      }
    }
  });
});

describe('what an answer teaches', () => {
  it('a refusal at or below the accepted window forgets it (the plan shrank)', () => {
    const known = afterRefused({ acceptedHours: 168, refusedHours: null }, 96);
    expect(known).toEqual({ acceptedHours: null, refusedHours: 96 });
    expect(nextWindow(known)).toEqual({ hours: 48, probe: true });
  });

  it('an answer at or above the refusal forgets it (the plan grew)', () => {
    expect(afterAccepted({ acceptedHours: 48, refusedHours: 96 }, 96)).toEqual({
      acceptedHours: 96,
      refusedHours: null,
    });
  });

  it('a shorter answer changes nothing', () => {
    const known = { acceptedHours: 168, refusedHours: 192 };
    expect(afterAccepted(known, 24)).toEqual(known);
    expect(settledWindow(known)).toBe(168);
    expect(settledWindow(UNKNOWN_WINDOW)).toBe(48);
  });

  it('a refused probe splits back to the accepted window; a refused known window halves', () => {
    expect(pieceHoursAfterRefusal({ acceptedHours: 96, refusedHours: 192 }, 192)).toBe(96);
    expect(pieceHoursAfterRefusal({ acceptedHours: null, refusedHours: 48 }, 48)).toBeUndefined();
  });
});

describe('tileFrom', () => {
  it('lays windows from the start, not on the UTC grid, and clips the last', () => {
    const from = new Date('2023-01-01T05:00:00Z');
    const to = new Date('2023-01-15T00:00:00Z');
    const windows = tileFrom(from, to, 168);
    expect(windows.map((w) => [w.from.toISOString(), w.to.toISOString()])).toEqual([
      ['2023-01-01T05:00:00.000Z', '2023-01-08T05:00:00.000Z'],
      ['2023-01-08T05:00:00.000Z', '2023-01-15T00:00:00.000Z'],
    ]);
    expect(tileFrom(from, to, 168, 1)).toHaveLength(1);
  });
});
