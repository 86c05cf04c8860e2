import type { Config } from '../config/config.js';
import type { RunProgress } from '../ledger/run-progress.js';
import { formatDuration } from '../planner/estimate-plan.js';
import { heldRunEtaMs } from '../planner/held-run-eta.js';

/**
 * `, ETA ~1 d 2 h (the reset, then the 40 chunk(s) left)` beside a run's hold on a quota or the
 * budget (`heldRunEtaMs`): a held run ends no sooner than the reset plus the work left after
 * it. Nothing for other holds, or a run with nothing left.
 */
export function formatHeldEta(
  p: Pick<RunProgress, 'total' | 'done' | 'failed' | 'waiting'>,
  config: Pick<Config, 'quota' | 'rateLimits'>,
  nowMs = Date.now(),
): string {
  const left = p.total - p.done - p.failed;
  const etaMs = heldRunEtaMs(left, p.waiting, config, undefined, nowMs);
  if (etaMs === undefined) return '';
  return `, ETA ~${formatDuration(etaMs)} (the reset, then the ${left} chunk(s) left)`;
}
