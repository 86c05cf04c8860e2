import type { App } from '../../src/app.js';
import type { RunProgress } from '../../src/ledger/run-progress.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { waitForRun } from './wait-for-run.js';

/**
 * Works the run to its end with an in-process ingest worker of `app` (`concurrency` job slots,
 * default 4), closed after however the wait ends; the run's last progress. `runId` is what
 * planning returned: undefined (nothing planned) fails the test here rather than hanging it.
 */
export async function workRun(
  app: App,
  runId: number | undefined,
  options: { concurrency?: number; timeoutMs?: number } = {},
): Promise<RunProgress> {
  if (runId === undefined) throw new Error('nothing planned');
  const worker = IngestWorker.start(app, { concurrency: options.concurrency ?? 4 });
  try {
    return await waitForRun(app.db, runId, { timeoutMs: options.timeoutMs });
  } finally {
    await worker.close();
  }
}
