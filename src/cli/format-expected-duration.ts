import type { RateLimitRule } from '../config/rate-limit.js';
import { formatDuration } from '../planner/estimate-plan.js';
import type { ExpectedDuration } from '../planner/expected-duration.js';

/** `00:00 UTC`, `2026-11-30 00:00 UTC` when not today; seconds too when not on a whole minute. */
function clock(ms: number, nowMs: number): string {
  const iso = new Date(ms).toISOString();
  const time = iso.slice(11, iso.slice(17, 19) === '00' ? 16 : 19);
  const sameDay = iso.slice(0, 10) === new Date(nowMs).toISOString().slice(0, 10);
  return `${sameDay ? '' : `${iso.slice(0, 10)} `}${time} UTC`;
}

/**
 * The one duration line of a dry run or plan (`expectedDuration`): `expected duration: ~2 min at
 * 10/s`, or, when today's allowance does not cover the calls, `expected duration: ~1 d 3 h
 * (today's allowance covers 150 of 4000 calls; the rest after the reset at 00:00 UTC of the daily
 * quota (ENVDATA_QUOTA), 2 resets in all; at 10/s)`.
 */
export function formatExpectedDuration(
  d: ExpectedDuration,
  rules: readonly RateLimitRule[],
  nowMs = Date.now(),
): string {
  const pace =
    rules.length === 0
      ? 'no rate limit (ENVDATA_RATE_LIMIT=off): as fast as the service answers'
      : `at ${rules.map((r) => r.label).join(', ')}`;
  if (d.calls === 0) return 'expected duration: nothing to fetch';
  if (d.ms === undefined) {
    return `expected duration: never — ${d.firstReset?.name ?? 'a quota'} allows no call`;
  }
  const duration = d.ms < 1000 ? formatDuration(d.ms) : `~${formatDuration(d.ms)}`;
  if (d.firstReset === undefined) {
    return rules.length === 0
      ? `expected duration: ${pace}`
      : `expected duration: ${duration} ${pace}`;
  }
  const resets = d.resets > 1 ? `, ${d.resets} resets in all` : '';
  return (
    `expected duration: ${duration} (today's allowance covers ${d.coveredNow} of ${d.calls} calls; ` +
    `the rest after the reset at ${clock(d.firstReset.atMs, nowMs)} of ${d.firstReset.name}${resets}; ${pace})`
  );
}
