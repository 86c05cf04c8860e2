import type { Kysely } from 'kysely';
import { runProgress, type RunProgress } from '../../src/ledger/run-progress.js';
import type { Database } from '../../src/warehouse/schema.js';
import { pollUntil } from './poll-until.js';

/**
 * Resolves when the ledger says the run is no longer running (or `until` holds); rejects after
 * `timeoutMs` with the last progress seen.
 */
export function waitForRun(
  db: Kysely<Database>,
  runId: number,
  options: { timeoutMs?: number; until?: (p: RunProgress) => boolean } = {},
): Promise<RunProgress> {
  const until = options.until ?? ((p: RunProgress) => p.status !== 'running');
  return pollUntil<RunProgress, RunProgress | undefined>(
    async () => {
      const progress = await runProgress(db, runId);
      return progress && until(progress) ? { done: progress } : { last: progress };
    },
    {
      everyMs: 50,
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      describe: (last) =>
        `run ${runId} did not get there in time; last progress: ${JSON.stringify(last)}`,
    },
  );
}
