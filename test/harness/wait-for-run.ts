import type { Kysely } from 'kysely';
import { runProgress, type RunProgress } from '../../src/ledger/run-progress.js';
import type { Database } from '../../src/warehouse/schema.js';

/**
 * Resolves when the ledger says the run is no longer running (or `until` holds), polling the
 * ledger; rejects after `timeoutMs` with the last progress seen.
 */
export async function waitForRun(
  db: Kysely<Database>,
  runId: number,
  options: { timeoutMs?: number; until?: (p: RunProgress) => boolean } = {},
): Promise<RunProgress> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const until = options.until ?? ((p: RunProgress) => p.status !== 'running');
  let last: RunProgress | undefined;
  while (Date.now() < deadline) {
    last = await runProgress(db, runId);
    if (last && until(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${runId} did not get there in time; last progress: ${JSON.stringify(last)}`);
}
