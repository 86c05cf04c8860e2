import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { retryFailedChunks } from '../../src/runs/resume-runs.js';
import { startBackfill, type BackfillRequest } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { runChunks } from './run-chunks.js';
import { factRows, warehouseDigest } from './warehouse-digest.js';

// A held (hang) request gives up after half a second.
const fx = useBackfillFixture({}, { ENVDATA_HTTP_TIMEOUT_MS: '500' });

function request(
  datasets: BackfillRequest['datasets'],
  locationNames: readonly string[],
  from: string,
  to: string,
): BackfillRequest {
  return {
    datasets,
    locations: fx.locations.filter((l) => locationNames.includes(l.name)),
    from: new Date(`${from}T00:00:00Z`),
    to: new Date(`${to}T00:00:00Z`),
    windowHours: 48,
  };
}

/** Plans `req` and waits until its run is no longer running (a worker must be running). */
async function backfill(app: App, req: BackfillRequest) {
  const start = await startBackfill(app, req);
  const progress = await waitForRun(app.db, start.runId!);
  return { start, progress, chunks: await runChunks(app.db, start.runId!) };
}

describe('a service failing with 5xx, resets and hangs', () => {
  it('retries transient failures with backoff until every chunk lands', async () => {
    fx.simulator.resetStats();
    fx.simulator.addFaultScripts('history:error=503x3; history:reset x1; history:hang x1');
    const worker = IngestWorker.start(fx.app, { concurrency: 4 });
    try {
      const { start, progress, chunks } = await backfill(
        fx.app,
        request(['pollen', 'weather'], ['Berlin', 'Brisbane'], '2024-06-02', '2024-06-12'),
      );
      expect(start.estimate.chunks).toBe(20);
      expect(progress).toMatchObject({ status: 'done', done: 20, failed: 0 });

      const stats = fx.simulator.stats();
      expect(stats.byStatus).toEqual({ '200': 20, '503': 3, reset: 1, hang: 1 });
      // Every failed call cost the chunk that made it one attempt, and is on the ledger.
      const retried = chunks.filter((c) => c.attempts > 1);
      expect(retried.length).toBeGreaterThanOrEqual(2);
      expect(chunks.reduce((n, c) => n + c.attempts - 1, 0)).toBe(5);
      expect(chunks.reduce((n, c) => n + c.calls, 0)).toBe(stats.total);
      expect(new Set(chunks.map((c) => `${c.status} ${c.error_code}`))).toEqual(
        new Set(['done null']),
      );
      expect(factRows(await warehouseDigest(fx.app.db))).toBe(start.estimate.expectedRows);
    } finally {
      await worker.close();
    }
  });

  it('fails a chunk after ENVDATA_MAX_ATTEMPTS 5xx, finishes the rest, and `retry` re-queues only it', async () => {
    const app = fx.newApp({ ENVDATA_MAX_ATTEMPTS: '3' });
    const worker = IngestWorker.start(app, { concurrency: 2 });
    try {
      // Weather already done everywhere but Berlin's last window: the run below has exactly one
      // weather chunk, which takes all three 503s.
      await backfill(app, request(['weather'], ['Brisbane'], '2024-06-12', '2024-06-18'));
      await backfill(app, request(['weather'], ['Berlin'], '2024-06-12', '2024-06-16'));
      fx.simulator.resetStats();
      fx.simulator.addFaultScripts('weather:error=503x3');

      const { start, progress, chunks } = await backfill(
        app,
        request(['pollen', 'weather'], ['Berlin', 'Brisbane'], '2024-06-12', '2024-06-18'),
      );
      expect(start.estimate.byDataset).toMatchObject({
        pollen: { chunks: 6 },
        weather: { chunks: 1 },
      });
      expect(progress).toMatchObject({
        status: 'failed',
        done: 6,
        failed: 1,
        failures: { SERVER_ERROR: 1 },
      });
      const failed = chunks.filter((c) => c.status === 'failed');
      expect(failed).toEqual([
        expect.objectContaining({
          dataset: 'weather',
          error_code: 'SERVER_ERROR',
          attempts: 3,
          calls: 3,
        }),
      ]);
      expect(fx.simulator.stats().byStatus).toEqual({ '200': 6, '503': 3 });

      // `status RUN` names the failed chunk: location, dataset, window, code and message.
      const status = await runCliInProcess(['status', String(start.runId)], fx.cliEnv());
      expect(status.stdout).toMatch(/failed chunks:\n {2}SERVER_ERROR × 1: the service failed at/);
      expect(status.stdout).toMatch(
        /^ {4}Berlin weather 2024-06-16 00:00–2024-06-18 00:00 UTC \(chunk \d+, 3 attempt\(s\)\)$/m,
      );
      expect(status.stdout).toContain(`envdata retry ${start.runId}`);
      const json = await runCliInProcess(['status', String(start.runId), '--json'], fx.cliEnv());
      const parsed = JSON.parse(json.stdout) as {
        failedChunks: { code: string; chunks: number; examples: { location: string }[] }[];
      };
      expect(parsed.failedChunks).toEqual([
        expect.objectContaining({
          code: 'SERVER_ERROR',
          chunks: 1,
          examples: [expect.objectContaining({ location: 'Berlin', dataset: 'weather' })],
        }),
      ]);

      fx.simulator.resetStats();
      expect(await retryFailedChunks(app, start.runId!)).toBe(1);
      const after = await waitForRun(app.db, start.runId!);
      expect(after).toMatchObject({ status: 'done', done: 7, failed: 0 });
      expect(fx.simulator.stats().byEndpoint).toEqual({ 'weather-history': 1 });
      const again = await runChunks(app.db, start.runId!);
      expect(again.find((c) => c.chunk_id === failed[0]!.chunk_id)).toMatchObject({
        status: 'done',
        error_code: null,
        attempts: 1,
      });
    } finally {
      await worker.close();
    }
  });
});
