import type { Window } from '../types.js';

const HOUR_MS = 3_600_000;

/**
 * Whole UTC hours (epoch ms of each hour's start) → the fewest half-open windows that hold
 * exactly them, in time order. `[0:00, 1:00)` and `[1:00, 2:00)` become `[0:00, 2:00)`.
 */
export function hourRanges(hours: Iterable<number>): Window[] {
  const sorted = [...new Set(hours)].sort((a, b) => a - b);
  const ranges: Window[] = [];
  let from: number | undefined;
  let to = 0;
  for (const hour of sorted) {
    if (from !== undefined && hour === to) {
      to += HOUR_MS;
      continue;
    }
    if (from !== undefined) ranges.push({ from: new Date(from), to: new Date(to) });
    from = hour;
    to = hour + HOUR_MS;
  }
  if (from !== undefined) ranges.push({ from: new Date(from), to: new Date(to) });
  return ranges;
}

/** The start of every whole hour of `window` (a window is aligned to whole hours). */
export function hoursOf(window: Window): number[] {
  const hours: number[] = [];
  for (let t = window.from.getTime(); t < window.to.getTime(); t += HOUR_MS) hours.push(t);
  return hours;
}

/** `window` clipped to `[from, to)`, or `undefined` when nothing is left. */
export function clipWindow(window: Window, from: Date, to: Date): Window | undefined {
  const start = Math.max(window.from.getTime(), from.getTime());
  const end = Math.min(window.to.getTime(), to.getTime());
  return start < end ? { from: new Date(start), to: new Date(end) } : undefined;
}

/** `YYYY-MM-DD hh:00` for messages; ranges as `a – b` (end exclusive). */
export function formatHourRanges(ranges: readonly Window[], max = 3): string {
  const hour = (d: Date) => d.toISOString().slice(0, 13).replace('T', ' ') + ':00';
  const shown = ranges.slice(0, max).map((r) => `${hour(r.from)}–${hour(r.to)}`);
  return shown.join(', ') + (ranges.length > max ? `, … (${ranges.length} ranges)` : '');
}
