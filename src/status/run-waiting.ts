import type { RunProgress, RunWaiting } from '../ledger/run-progress.js';
import type { ConnectedWorker } from '../queue/list-workers.js';
import { queuePauseMs } from '../admission/queue-pause.js';
import type { Queue } from 'bullmq';

/** What only the queue knows of why work does not move, read at one instant. */
export interface QueueHolds {
  /** When the pause of every worker in force ends (a 429, a spent call window); `null`: none. */
  readonly pausedUntil: Date | null;
  /** Workers connected to the ingest queue; `undefined` when the queue could not be read. */
  readonly workers: number | undefined;
}

/**
 * The run's hold with what the queue adds, for a run that has work left and no hold of its own
 * from the ledger (`ledgerWaiting`): `throttled (429)` until the pause of every worker ends, else
 * `no worker connected`. The order when several hold: paused > a recorded hold (quota, budget)
 * > throttled > no worker. Read-time only: nothing is written.
 */
export function queueWaiting(
  run: Pick<RunProgress, 'status' | 'inFlight' | 'notYetDispatched' | 'waiting'>,
  holds: QueueHolds,
  now = new Date(),
): RunWaiting | null {
  if (run.waiting) return run.waiting;
  if (run.status !== 'running' || run.inFlight + run.notYetDispatched === 0) return null;
  if (holds.pausedUntil && holds.pausedUntil > now) {
    return { reason: 'throttled (429)', until: holds.pausedUntil, hint: null };
  }
  if (holds.workers === 0) {
    return { reason: 'no worker connected', until: null, hint: 'start `envdata worker`' };
  }
  return null;
}

/** `progress` with `queueWaiting` as its `waiting`. */
export function withQueueWaiting<P extends RunProgress>(progress: P, holds: QueueHolds): P {
  return { ...progress, waiting: queueWaiting(progress, holds) };
}

/**
 * Reads `QueueHolds`: the pause of every worker from the ingest queue `ingest` (open it once:
 * `app.queues.queue` makes a new one per call) and the count of workers `listWorkers` finds alive (either backend),
 * `undefined` when that cannot be read.
 */
export async function readQueueHolds(
  ingest: Queue,
  listWorkers: () => Promise<readonly ConnectedWorker[]>,
): Promise<QueueHolds> {
  const pauseMs = await queuePauseMs(ingest);
  const workers = await listWorkers().then(
    // Alive by heartbeat: a connection without one is a stuck process or an older envdata.
    (w) => w.filter((worker) => worker.alive).length,
    () => undefined,
  );
  return { pausedUntil: pauseMs > 0 ? new Date(Date.now() + pauseMs) : null, workers };
}
