import { performance } from 'node:perf_hooks';
import type { Location } from '../../src/locations/location.js';
import { createFeeder } from '../../src/dispatch/create-feeder.js';
import { planRun } from '../../src/planner/plan-run.js';
import { lastCompleteHourEnd } from '../../src/windows/tile-windows.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { benchApp, waitForRun, type BenchTarget } from './bench-app.js';
import { startSimulatorProcess } from './simulator-process.js';

const DAY_MS = 86_400_000;

/** A backfill of pollen and weather against the simulator, no rate limit: part 1. */
export interface EndToEnd {
  readonly chunks: number;
  readonly calls: number;
  readonly rows: number;
  /** From planning to the run's end, the worker already connected. */
  readonly seconds: number;
  /** How the run ended: `done` unless something failed. */
  readonly status: string;
  /** The window the facts landed in, for the ceilings. */
  readonly from: Date;
  readonly to: Date;
}

/**
 * Backfills `days` of pollen and weather up to 2024-07-01 for `locations` (48 h windows) with one
 * worker of `concurrency` slots, against a simulator in its own process.
 */
export async function measureEndToEnd(
  target: BenchTarget,
  locations: readonly Location[],
  options: { readonly days: number; readonly concurrency: number },
): Promise<EndToEnd> {
  const simulator = await startSimulatorProcess();
  const app = benchApp(target, {
    ENVDATA_BASE_URL: simulator.url,
    ENVDATA_RATE_LIMIT: 'off',
  });
  let worker: IngestWorker | undefined;
  try {
    const to = new Date(Date.UTC(2024, 6, 1));
    const from = new Date(to.getTime() - options.days * DAY_MS);
    worker = IngestWorker.start(app, { concurrency: options.concurrency });
    const feeder = createFeeder(app);
    // Connected (and on Postgres, the queue's schema checked) before the clock starts.
    await worker.worker.waitUntilReady();
    await feeder.topUp();
    const t0 = performance.now();
    const { runId, estimate } = await planRun(
      app.db,
      {
        kind: 'backfill',
        datasets: ['pollen', 'weather'],
        locations,
        from,
        to,
        windowHours: 48,
        now: lastCompleteHourEnd(),
      },
      [],
    );
    await feeder.topUp();
    const done = await waitForRun(app.db, runId!);
    const seconds = (performance.now() - t0) / 1_000;
    await worker.close();
    return {
      chunks: estimate.chunks,
      calls: done.calls,
      rows: done.rows,
      seconds,
      status: done.status,
      from,
      to,
    };
  } finally {
    await worker?.close();
    await app.close();
    await simulator.stop();
  }
}
