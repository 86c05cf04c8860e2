import type { Window } from '../types.js';

const HOUR_MS = 3_600_000;

/**
 * Splits `[from, to)` into windows of `hours`, aligned to a fixed UTC grid (multiples of
 * `hours` since the epoch) and clipped at both ends. The grid keeps a window's identity the same
 * whatever range it was planned from, so planning again finds the chunks already there.
 * `from` is floored and `to` ceiled to whole hours. `max` stops after that many windows.
 */
export function tileWindows(from: Date, to: Date, hours: number, max = Infinity): Window[] {
  if (!Number.isInteger(hours) || hours < 1) throw new RangeError(`window of ${hours} h`);
  const size = hours * HOUR_MS;
  const start = Math.floor(from.getTime() / HOUR_MS) * HOUR_MS;
  const end = Math.ceil(to.getTime() / HOUR_MS) * HOUR_MS;
  const windows: Window[] = [];
  for (let t = start; t < end && windows.length < max;) {
    const next = Math.min((Math.floor(t / size) + 1) * size, end);
    windows.push({ from: new Date(t), to: new Date(next) });
    t = next;
  }
  return windows;
}

/** The start of the current hour: the end of the last complete hour. */
export function lastCompleteHourEnd(now: Date = new Date()): Date {
  return new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
}

/** How many windows of `hours` on the fixed UTC grid `[from, to)` is cut into (`tileWindows`). */
export function countWindows(from: Date, to: Date, hours: number): number {
  const start = Math.floor(from.getTime() / HOUR_MS);
  const end = Math.ceil(to.getTime() / HOUR_MS);
  if (end <= start) return 0;
  return Math.floor((end - 1) / hours) - Math.floor(start / hours) + 1;
}

/** Hours in `[from, to)`. */
export function countHours(from: Date, to: Date): number {
  return Math.max(0, Math.ceil(to.getTime() / HOUR_MS) - Math.floor(from.getTime() / HOUR_MS));
}

/**
 * Splits `[from, to)` into windows of `hours` laid from `from` on (not on the UTC grid): for
 * windows whose length changes while a gap is worked off (a learned window), where the grid would
 * leave a short window at every change. `max` stops after that many windows.
 */
export function tileFrom(from: Date, to: Date, hours: number, max = Infinity): Window[] {
  if (!Number.isInteger(hours) || hours < 1) throw new RangeError(`window of ${hours} h`);
  const size = hours * HOUR_MS;
  const end = Math.ceil(to.getTime() / HOUR_MS) * HOUR_MS;
  const windows: Window[] = [];
  for (let t = Math.floor(from.getTime() / HOUR_MS) * HOUR_MS; t < end && windows.length < max;) {
    const next = Math.min(t + size, end);
    windows.push({ from: new Date(t), to: new Date(next) });
    t = next;
  }
  return windows;
}
