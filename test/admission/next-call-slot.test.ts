import { describe, expect, it } from 'vitest';
import { nextCallSlot } from '../../src/admission/next-call-slot.js';

const rule = { max: 4, windowMs: 1_000, horizonMs: 500, spacingMs: 0, moving: undefined };

/** A generator of numbers in [0, 1) from a seed (mulberry32): the same run every time. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The most slots any window of `windowMs` holds. */
function mostInAWindow(slots: readonly number[], windowMs: number): number {
  const sorted = [...slots].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < sorted.length; j += 1) {
    while (sorted[j]! - sorted[i]! >= windowMs) i += 1;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

describe('nextCallSlot', () => {
  it('gives the first max slots now and the next when the max-th latest is a window old', () => {
    let slots: number[] = [];
    const got: (number | undefined)[] = [];
    for (let i = 0; i < 5; i += 1) {
      const next = nextCallSlot(slots, 10_000, { ...rule, horizonMs: 5_000 });
      slots = next.slots;
      got.push(next.slot);
    }
    expect(got).toEqual([10_000, 10_000, 10_000, 10_000, 11_000]);
  });

  it('reserves nothing beyond the horizon, and says when the slot would be', () => {
    const full = [10_000, 10_000, 10_000, 10_000];
    const next = nextCallSlot(full, 10_200, rule);
    expect(next).toEqual({ slots: full, slot: undefined, waitMs: 800 });
    expect(nextCallSlot(full, 10_600, rule)).toMatchObject({ slot: 11_000, waitMs: 400 });
  });

  it('spaces a new slot from the latest', () => {
    expect(nextCallSlot([10_000], 10_010, { ...rule, spacingMs: 250 }).slot).toBe(10_250);
    expect(nextCallSlot([10_000], 10_300, { ...rule, spacingMs: 250 }).slot).toBe(10_300);
  });

  it('moves a missed slot to now when no slot is taken a window after it', () => {
    const full = [10_000, 10_000, 10_000, 10_000];
    const moved = nextCallSlot(full, 10_300, { ...rule, moving: 10_000 });
    expect(moved).toEqual({ slots: [10_000, 10_000, 10_000, 10_300], slot: 10_300, waitMs: 0 });
    // The window keeps its four calls: the next slot is still a window after the first ones.
    expect(nextCallSlot(moved.slots, 10_600, rule).slot).toBe(11_000);
  });

  it('gives a missed slot back, and reserves at the end, when its window-later slot is taken', () => {
    const slots = [10_000, 10_000, 10_000, 10_000, 11_000];
    const next = nextCallSlot(slots, 10_700, { ...rule, moving: 10_000 });
    expect(next.slots).toEqual([10_000, 10_000, 10_000, 11_000, 11_000]);
    expect(next.slot).toBe(11_000);
  });

  it('drops slots a window old: they share no window with a new one', () => {
    expect(nextCallSlot([8_000, 9_000, 9_500], 10_000, rule).slots).toEqual([9_500, 10_000]);
  });

  it('never lets a window hold more than max slots, whatever callers reserve, miss and give back', () => {
    const draw = random(23);
    let slots: number[] = [];
    /** Slots a call was (or will be) made at: reserved, not moved nor given back. */
    const used: number[] = [];
    const held: number[] = [];
    let now = 1_000_000;
    const windowMs = 1_000;
    for (let step = 0; step < 20_000; step += 1) {
      now += Math.floor(draw() * 40);
      const r = { max: 5, windowMs, horizonMs: 400, spacingMs: Math.floor(draw() * 3) * 50 };
      const choice = draw();
      if (choice < 0.15 && held.length > 0) {
        // A caller misses its slot: it moves it (if due) or keeps waiting.
        const i = Math.floor(draw() * held.length);
        const missed = held[i]!;
        if (missed > now) continue;
        const next = nextCallSlot(slots, now, { ...r, moving: missed });
        slots = next.slots;
        held.splice(i, 1);
        used.splice(used.indexOf(missed), 1);
        if (next.slot !== undefined) {
          used.push(next.slot);
          held.push(next.slot);
        }
      } else {
        const next = nextCallSlot(slots, now, { ...r, moving: undefined });
        slots = next.slots;
        if (next.slot !== undefined) {
          expect(next.slot - now).toBeLessThanOrEqual(400);
          used.push(next.slot);
          held.push(next.slot);
        }
      }
      // Calls made: slots come due.
      for (let i = held.length - 1; i >= 0; i -= 1) if (held[i]! <= now - 50) held.splice(i, 1);
    }
    expect(used.length).toBeGreaterThan(1_500);
    expect(mostInAWindow(used, windowMs)).toBeLessThanOrEqual(5);
  });
});
