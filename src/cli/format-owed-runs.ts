import type { OwedRuns } from './read-owed-runs.js';

/**
 * The runs a declared file is still owed, in one sentence for `plan` and `apply`:
 * `1 run is still owed: run 7 backfill 673 of 845 chunks, no worker connected — start one:
 * envdata worker`. A paused run says how to continue it; with `waitingHere` (apply --wait) the
 * runs are worked by this process, so no worker is asked for.
 */
export function formatOwedRuns(owed: OwedRuns, waitingHere = false): string {
  const n = owed.runs.length;
  const runs = owed.runs.map((p) => {
    const failed = p.failed > 0 ? `, ${p.failed} failed` : '';
    const at = `${p.done} of ${p.total} chunks${failed}`;
    return p.status === 'paused'
      ? `run ${p.runId} ${p.kind} paused at ${at} (continue: envdata resume ${p.runId})`
      : `run ${p.runId} ${p.kind} ${at}`;
  });
  const head = `${n} ${n === 1 ? 'run is' : 'runs are'} still owed: ${runs.join('; ')}`;
  if (!owed.runs.some((p) => p.status !== 'paused')) return head;
  if (waitingHere) return `${head}; worked here to the end (--wait)`;
  if (owed.workers === undefined) return `${head}, workers unknown (the queue did not answer)`;
  if (owed.workers === 0) return `${head}, no worker connected — start one: envdata worker`;
  return `${head}, ${owed.workers} worker(s) connected`;
}
