import type { App } from '../../src/app.js';
import { createHousekeeping } from '../../src/housekeeping/create-housekeeping.js';
import type { RunProgress } from '../../src/ledger/run-progress.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { waitForRun } from './wait-for-run.js';

/**
 * Works the run to its end with an in-process ingest worker of `app` (`concurrency` job slots,
 * default 4) and the housekeeping that runs beside it as in `app.start({ worker })` (chunks
 * folded after ENVDATA_CHUNK_RETENTION), both closed after however the wait ends; the run's last
 * progress. `runId` is what planning returned: undefined (nothing planned) fails the test here
 * rather than hanging it.
 */
export async function workRun(
  app: App,
  runId: number | undefined,
  options: { concurrency?: number; timeoutMs?: number } = {},
): Promise<RunProgress> {
  if (runId === undefined) throw new Error('nothing planned');
  const worker = IngestWorker.start(app, { concurrency: options.concurrency ?? 4 });
  const housekeeping = createHousekeeping(app);
  await housekeeping.start();
  try {
    return await waitForRun(app.db, runId, { timeoutMs: options.timeoutMs });
  } finally {
    await housekeeping.stop();
    await worker.close();
  }
}
