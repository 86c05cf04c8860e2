import type { RunProgress } from '../ledger/run-progress.js';

/**
 * What holds a run, as `status`, `status RUN` and the `--wait` line say it:
 * `waiting: quota (day) until 2026-11-27 00:00 UTC`.
 */
export function formatWaiting(waiting: NonNullable<RunProgress['waiting']>): string {
  const until = waiting.until.toISOString();
  const minutes = `${until.slice(0, 10)} ${until.slice(11, 16)}`;
  // A reset within the minute (short test days) shows its seconds too.
  const shown = until.slice(17, 19) === '00' ? minutes : `${minutes}:${until.slice(17, 19)}`;
  return `waiting: ${waiting.reason} until ${shown} UTC`;
}
