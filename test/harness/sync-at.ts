import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { RunningSimulator } from '../../src/simulator/start-simulator.js';
import { startSync } from '../../src/sync/start-sync.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { waitForQueueEmpty } from './poll-until.js';
import { waitForRun } from './wait-for-run.js';

/**
 * A nightly sync at `now`, the simulator's clock set to it (or to `serviceNow`, for a service
 * whose stamps fall in another hour than the sync's), run to its end by a worker of its own
 * (snapshot jobs included).
 */
export async function syncAt(
  fx: { readonly app: App; readonly simulator: RunningSimulator },
  now: Date,
  serviceNow: Date = now,
): Promise<void> {
  fx.simulator.setOptions({ now: serviceNow.toISOString() });
  const { runId } = await startSync(fx.app, now);
  const worker = IngestWorker.start(fx.app, { concurrency: 4 });
  try {
    expect((await waitForRun(fx.app.db, runId)).status).toBe('done');
    await waitForQueueEmpty(fx.app);
  } finally {
    await worker.close();
  }
}
