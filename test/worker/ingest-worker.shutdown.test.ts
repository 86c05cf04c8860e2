import { afterEach, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { pollUntil } from '../harness/poll-until.js';
import { startEnvdata, type RunningEnvdata } from '../harness/start-envdata.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { runChunks } from '../backfill/run-chunks.js';

// Every history call takes 20 s: far longer than the 3 s the worker is given to stop.
const fx = useBackfillFixture({ faults: 'history:latency=20000@100%' });
const SHUTDOWN_TIMEOUT_MS = 3_000;
const CONCURRENCY = 4;
const children: RunningEnvdata[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.child.exitCode === null) c.child.kill('SIGKILL');
});

describe('a worker given SIGTERM while its calls are still in flight', () => {
  it('aborts them at ENVDATA_SHUTDOWN_TIMEOUT_MS, hands their chunks back and exits within a second more', async () => {
    // 2 datasets × 2 locations × 2 windows = 8 chunks.
    const start = await startBackfill(fx.app, {
      ...backfillRange('2024-06-02', '2024-06-06'),
      locations: fx.locations,
    });
    const runId = start.runId!;
    const worker = startEnvdata(
      ['worker', '--concurrency', String(CONCURRENCY)],
      fx.cliEnv({
        ENVDATA_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
        ENVDATA_ARCHIVE_RAW: 'false',
      }),
    );
    children.push(worker);

    // Four calls have reached the service and are being held there.
    await pollUntil(
      async () => {
        const held = fx.simulator.stats().faults['latency'] ?? 0;
        return held >= CONCURRENCY ? { done: held } : { last: held };
      },
      { timeoutMs: 30_000, describe: (held) => `only ${String(held)} call(s) reached the service` },
    );
    const running = (await runChunks(fx.app.db, runId)).filter((c) => c.status === 'running');
    expect(running).toHaveLength(CONCURRENCY);

    const signalled = Date.now();
    worker.child.kill('SIGTERM');
    const { code } = await worker.exited;
    const exitMs = Date.now() - signalled;
    expect(code, worker.stderr()).toBe(0);
    expect(exitMs).toBeGreaterThanOrEqual(SHUTDOWN_TIMEOUT_MS);
    expect(exitMs).toBeLessThanOrEqual(SHUTDOWN_TIMEOUT_MS + 1_000);
    expect(worker.stderr()).toMatch(/their calls are aborted/);

    // The ledger has them back as queued, nothing counted: no attempt, no call.
    const chunks = await runChunks(fx.app.db, runId);
    expect(chunks.filter((c) => c.status === 'running')).toEqual([]);
    for (const { chunk_id: chunkId } of running) {
      expect(chunks.find((c) => c.chunk_id === chunkId)).toMatchObject({
        status: 'queued',
        attempts: 0,
      });
    }
    // BullMQ has their jobs back, waiting, with no attempt used.
    const queue = fx.app.queues.queue(QUEUE_NAMES.ingest);
    for (const { chunk_id: chunkId } of running) {
      const job = await queue.getJob(`chunk-${chunkId}`);
      expect(job?.attemptsMade).toBe(0);
      expect(await job?.getState()).toMatch(/^(waiting|prioritized)$/);
    }
    expect((await runProgress(fx.app.db, runId))?.calls).toBe(0);

    // Another worker, on a service that answers at once, finishes the run.
    fx.simulator.clearFaults();
    const second = IngestWorker.start(fx.app, { concurrency: CONCURRENCY });
    try {
      const progress = await waitForRun(fx.app.db, runId, { timeoutMs: 30_000 });
      expect(progress).toMatchObject({ status: 'done', done: 8, failed: 0 });
    } finally {
      await second.close();
    }
    const done = await runChunks(fx.app.db, runId);
    expect(new Set(done.map((c) => `${c.status} ${c.attempts}`))).toEqual(new Set(['done 1']));
  }, 90_000);
});
