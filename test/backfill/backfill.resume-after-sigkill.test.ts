import { describe, expect, it } from 'vitest';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { useEnvdataProcesses, type RunningEnvdata } from '../harness/start-envdata.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { useCleanReference } from './clean-reference.js';
import { runChunks } from './run-chunks.js';
import { factRows, warehouseDigest } from './warehouse-digest.js';

const fx = useBackfillFixture();
const reference = useCleanReference();
const KILLED_CONCURRENCY = 2;
// 2024-06-02 is on the 48-hour grid: 2 datasets × 2 locations × 5 windows = 20 chunks.
const range = backfillRange('2024-06-02', '2024-06-12');

const startProcess = useEnvdataProcesses();

/** `envdata worker` as its own process, on this file's database, queue and simulator. */
function spawnWorker(): RunningEnvdata {
  return startProcess(
    ['worker'],
    fx.cliEnv({
      // Slow enough that the run is still going when the process is killed.
      ENVDATA_RATE_LIMIT: '5/s',
      ENVDATA_WORKER_CONCURRENCY: String(KILLED_CONCURRENCY),
      ENVDATA_JOB_LOCK_MS: '2000',
      ENVDATA_ARCHIVE_RAW: 'false',
    }),
  );
}

describe('a worker process killed with SIGKILL mid-run', () => {
  it('loses no chunk, duplicates no row, and another worker re-fetches at most what was in flight', async () => {
    const start = await startBackfill(fx.app, { ...range, locations: fx.locations });
    const runId = start.runId!;
    expect(start.estimate.chunks).toBe(20);

    const killed = spawnWorker();
    await waitForRun(fx.app.db, runId, { until: (p) => p.done >= 4, timeoutMs: 30_000 });
    killed.child.kill('SIGKILL');
    expect((await killed.exited).signal).toBe('SIGKILL');

    // The dead process can no longer touch the ledger: what it left claimed was in flight.
    const atKill = await runChunks(fx.app.db, runId);
    const doneAtKill = atKill.filter((c) => c.status === 'done').length;
    const inFlightAtKill = atKill.filter((c) => c.status === 'running').length;
    expect(doneAtKill).toBeGreaterThanOrEqual(4);
    expect(doneAtKill).toBeLessThan(20);
    expect(inFlightAtKill).toBeLessThanOrEqual(KILLED_CONCURRENCY);

    // The killed process's jobs are still "active" in Redis until their locks lapse.
    const worker = IngestWorker.start(fx.app, { concurrency: 4 });
    try {
      const progress = await waitForRun(fx.app.db, runId, { timeoutMs: 30_000 });
      expect(progress).toMatchObject({ status: 'done', done: 20, failed: 0, inFlight: 0 });
    } finally {
      await worker.close();
    }

    const calls = fx.simulator.stats().total;
    expect(calls).toBeGreaterThanOrEqual(20);
    expect(calls).toBeLessThanOrEqual(20 + inFlightAtKill);
    const chunks = await runChunks(fx.app.db, runId);
    // A kill costs no attempt: the stalled job comes back with its attempts untouched.
    expect(new Set(chunks.map((c) => `${c.status} ${c.attempts}`))).toEqual(new Set(['done 1']));

    const digest = await warehouseDigest(fx.app.db);
    expect(factRows(digest)).toBe(start.estimate.expectedRows);
    expect(digest).toEqual(await reference.digestAfter(range));
  });
});
