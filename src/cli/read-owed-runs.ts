import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import type { Uses } from '../runtime/app-resources.js';
import type { DeclaredPlan } from '../declared/declared-plan.js';
import { runProgress, type RunProgress } from '../ledger/run-progress.js';
import { readQueueHolds, withQueueWaiting } from '../status/run-waiting.js';

/** The runs a declared file is still owed, where they stand, and who works on them. */
export interface OwedRuns {
  /** `DeclaredPlan.owed`, each as `runProgress` reads it now, with the queue's holds. */
  readonly runs: readonly RunProgress[];
  /**
   * Workers alive (by heartbeat) on the ingest queue, as `status` counts them; `undefined` when
   * the queue did not answer. Not read (0) when no run is owed.
   */
  readonly workers: number | undefined;
}

/**
 * Reads the progress of the runs `plan` leaves its missing hours to (`DeclaredPlan.owed`) and
 * the workers connected (`readQueueHolds`, as `status` reads them): what `plan` and `apply` say instead of "no changes" while a run owes
 * history nobody is fetching.
 */
export async function readOwedRuns(
  app: Uses<'db' | 'queues'>,
  plan: DeclaredPlan,
): Promise<OwedRuns> {
  const runs: RunProgress[] = [];
  for (const { runId } of plan.owed) {
    const progress = await runProgress(app.db, runId);
    if (progress) runs.push(progress);
  }
  if (runs.length === 0) return { runs, workers: 0 };
  // Asked first, with its own timeout: a queue that does not answer would hold `plan` up.
  const answers = await app.queues.assertAnswers().then(
    () => true,
    () => false,
  );
  if (!answers) return { runs, workers: undefined };
  const holds = await readQueueHolds(app.queues.queue(QUEUE_NAMES.ingest), () =>
    app.queues.listWorkers(QUEUE_NAMES.ingest),
  ).catch(() => undefined);
  if (!holds) return { runs, workers: undefined };
  return { runs: runs.map((p) => withQueueWaiting(p, holds)), workers: holds.workers };
}
