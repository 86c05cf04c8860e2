import type { Location } from '../../src/locations/location.js';
import { createFeeder } from '../../src/dispatch/create-feeder.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { benchApp, timedBackfill, type BenchTarget, type TimedBackfill } from './bench-app.js';
import { startSimulatorProcess } from './simulator-process.js';

const DAY_MS = 86_400_000;

/** A backfill of pollen and weather against the simulator, no rate limit: part 1. */
export interface EndToEnd extends TimedBackfill {
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
    const run = await timedBackfill(app, locations, { from, to }, () => feeder.topUp());
    await worker.close();
    return { ...run, from, to };
  } finally {
    await worker?.close();
    await app.close();
    await simulator.stop();
  }
}
