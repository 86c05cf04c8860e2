import type { Config } from '../config/config.js';
import type { RunWaiting } from '../ledger/run-progress.js';
import { allowanceWindows } from './allowance-windows.js';
import { expectedDuration } from './expected-duration.js';

/**
 * The time left of a run, in real ms, as `status`, the `--wait` line and the console show it:
 * `paceMs` (the pace so far), but while the run waits on a quota or the budget until its reset,
 * at least that reset plus the `callsLeft` after it (`expectedDuration`): a held run's pace says
 * nothing of the wait. `undefined` when neither is known.
 */
export function heldRunEtaMs(
  callsLeft: number,
  waiting: Pick<RunWaiting, 'reason' | 'until'> | null | undefined,
  config: Pick<Config, 'quota' | 'rateLimits'>,
  paceMs: number | undefined,
  nowMs = Date.now(),
): number | undefined {
  const until = waiting?.until?.getTime();
  const window = /^(quota|budget) \((day|month)\)/.exec(waiting?.reason ?? '')?.[2] as
    'day' | 'month' | undefined;
  if (until === undefined || until <= nowMs || window === undefined || callsLeft <= 0) {
    return paceMs;
  }
  const windows = allowanceWindows(config.quota, undefined, 'other', nowMs, {
    window,
    untilMs: until,
  });
  const expected = expectedDuration({
    calls: callsLeft,
    rules: config.rateLimits,
    nowMs,
    ...windows,
  });
  // The held window not configured here (another host's settings): the wait, then the work.
  const waitMs =
    expected.firstReset === undefined
      ? until - nowMs + (expected.ms ?? 0)
      : (expected.ms ?? until - nowMs);
  return Math.max(paceMs ?? 0, waitMs);
}
