import type { RateLimitRule } from '../config/rate-limit.js';
import { formatDuration } from './estimate-plan.js';

/**
 * How long a plan's calls take at the configured rate limits, for dry runs and plans:
 * `~2 min at 10/s`, `under a second at 10/s`. Without a rate limit (`off`) the service's speed
 * decides, which envdata cannot know: it says so rather than print a duration of nothing.
 */
export function formatPlanDuration(durationMs: number, rules: readonly RateLimitRule[]): string {
  if (rules.length === 0)
    return 'no rate limit (ENVDATA_RATE_LIMIT=off): as fast as the service answers';
  const limits = rules.map((r) => r.label).join(', ');
  const duration =
    durationMs < 1000 ? formatDuration(durationMs) : `~${formatDuration(durationMs)}`;
  return `${duration} at ${limits}`;
}
