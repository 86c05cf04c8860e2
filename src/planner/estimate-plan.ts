import type { RateLimitRule } from '../config/rate-limit.js';
import { datasetDefinition } from '../datasets/registry.js';
import type { Dataset, PollenRegion } from '../types.js';

/** Fact rows one hour of a dataset lands for a location of `region` (its definition says). */
export function rowsPerHour(dataset: Dataset, region: PollenRegion): number {
  return datasetDefinition(dataset).rowsPerHour({ pollenRegion: region });
}

/** How long `calls` take at the configured rate limits (the tightest rule wins); 0 when unlimited. */
export function estimateDurationMs(calls: number, rules: readonly RateLimitRule[]): number {
  let longest = 0;
  for (const rule of rules) {
    const full = Math.floor(calls / rule.max);
    const ms = full * rule.durationMs + (calls % rule.max === 0 ? 0 : 1);
    longest = Math.max(longest, rule.durationMs >= 86_400_000 ? full * rule.durationMs : ms);
  }
  return longest;
}

/** `3 d 4 h`, `12 min`, `40 s`; below one second `under a second`, never `0 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return 'under a second';
  const s = Math.round(ms / 1000);
  if (s < 90) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 90) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ${min % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
