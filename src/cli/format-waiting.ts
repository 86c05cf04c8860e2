import type { RunWaiting } from '../ledger/run-progress.js';

/**
 * What holds a run, as `status`, `status RUN` and the `--wait` line say it, for any reason:
 * `waiting: quota (day) until 2026-11-27 00:00 UTC`, `waiting: paused — envdata resume 12`,
 * `waiting: no worker connected — start \`envdata worker\``.
 */
export function formatWaiting(waiting: RunWaiting): string {
  return `waiting: ${waiting.reason}${formatUntil(waiting.until)}${waiting.hint === null ? '' : ` — ${waiting.hint}`}`;
}

/** ` until 2026-11-27 00:00 UTC`; seconds too when a reset falls within a minute (short test days). */
function formatUntil(until: Date | null): string {
  if (until === null) return '';
  const iso = until.toISOString();
  const minutes = `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  const seconds = iso.slice(17, 19);
  return ` until ${seconds === '00' ? minutes : `${minutes}:${seconds}`} UTC`;
}
