import { describe, expect, it } from 'vitest';
import { resumeRuns } from '../../src/runs/resume-runs.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { waitForQueueEmpty } from '../harness/poll-until.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { runChunks } from './run-chunks.js';

const WRONG_KEY = 'not-the-key-4711';
const fx = useBackfillFixture();

describe('a refused API key (401)', () => {
  it('`envdata backfill --wait` stops at once, exits 1 and names ENVDATA_API_KEY', async () => {
    const result = await runEnvdata(
      [
        'backfill',
        ...['--dataset', 'all', '--from', '2024-06-12', '--to', '2024-06-16'],
        ...['--wait', '--concurrency', '2'],
      ],
      fx.cliEnv({ ENVDATA_API_KEY: WRONG_KEY }),
    );
    const output = result.stdout + result.stderr;
    expect(result.code, output).toBe(1);
    expect(output).toMatch(/stopped/);
    expect(output).toContain('ENVDATA_API_KEY');
    expect(output).not.toContain(WRONG_KEY);
    // Only the calls already in flight when the first 401 came back.
    expect(fx.simulator.stats().total).toBeGreaterThan(0);
    expect(fx.simulator.stats().total).toBeLessThanOrEqual(2);
    expect(fx.simulator.stats().byStatus).toEqual({ '401': fx.simulator.stats().total });
    const runs = await fx.app.db.selectFrom('run').selectAll().execute();
    expect(runs).toEqual([
      expect.objectContaining({ status: 'stopped', error_code: 'UNAUTHORIZED' }),
    ]);
  });

  it('stops the run without using attempts; after the key is fixed, resume finishes it', async () => {
    fx.simulator.resetStats();
    const bad = fx.newApp({ ENVDATA_API_KEY: WRONG_KEY });
    const start = await startBackfill(bad, {
      ...backfillRange('2024-06-02', '2024-06-06'),
      locations: fx.locations,
    });
    const runId = start.runId!;
    expect(start.estimate.chunks).toBe(8);

    const refused = IngestWorker.start(bad, { concurrency: 4 });
    try {
      const stopped = await waitForRun(bad.db, runId);
      expect(stopped).toMatchObject({ status: 'stopped', errorCode: 'UNAUTHORIZED', done: 0 });
      expect(stopped.errorMessage).toMatch(
        /check ENVDATA_API_KEY \(no retry can fix a refused key\); the run stops until the key is fixed$/,
      );
      // Every job left is taken and dropped without a call.
      await waitForQueueEmpty(bad);
    } finally {
      await refused.close();
    }
    expect(fx.simulator.stats().total).toBeGreaterThan(0);
    expect(fx.simulator.stats().total).toBeLessThanOrEqual(4);
    const chunks = await runChunks(fx.app.db, runId);
    expect(chunks).toHaveLength(8);
    expect(new Set(chunks.map((c) => `${c.status} ${c.attempts}`))).toEqual(new Set(['queued 0']));

    fx.simulator.resetStats();
    const resumed = await resumeRuns(fx.app, runId);
    expect(resumed).toEqual({ runs: [runId], dispatched: 8, pauseEndedMs: 0 });
    const worker = IngestWorker.start(fx.app, { concurrency: 4 });
    try {
      const progress = await waitForRun(fx.app.db, runId);
      expect(progress).toMatchObject({ status: 'done', done: 8, failed: 0, errorCode: null });
      expect(progress.rows).toBe(start.estimate.expectedRows);
    } finally {
      await worker.close();
    }
    expect(fx.simulator.stats().byStatus).toEqual({ '200': 8 });
  });
});
