import type { ValueRange } from './environment-variables.js';

/**
 * A range as operators read it: `1–1000`, `2000–600000 ms (2 s to 10 min)`, `1h–31d`.
 *
 * @example formatRange({ min: 2_000, max: 600_000, unit: 'ms' }) // '2000–600000 ms (2 s to 10 min)'
 */
export function formatRange(range: ValueRange): string {
  switch (range.unit) {
    case 'count':
      return `${range.min}–${range.max}`;
    case 'ms':
      return `${range.min}–${range.max} ms (${humanMs(range.min)} to ${humanMs(range.max)})`;
    case 'h':
      return `${humanHours(range.min)}–${humanHours(range.max)}`;
  }
}

function humanMs(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${ms / 1_000} s`;
  if (ms < 3_600_000) return `${ms / 60_000} min`;
  return `${ms / 3_600_000} h`;
}

function humanHours(hours: number): string {
  return hours >= 24 && hours % 24 === 0 ? `${hours / 24}d` : `${hours}h`;
}
