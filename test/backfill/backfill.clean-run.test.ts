import { describe, expect, it } from 'vitest';
import { planRun } from '../../src/planner/plan-run.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForRun } from '../harness/wait-for-run.js';

const fx = useBackfillFixture();
const request = () => ({
  kind: 'backfill' as const,
  datasets: ['pollen', 'weather'] as const,
  locations: fx.locations,
  // 2024-06-02 is on the 48-hour grid (an even number of days since the epoch): 5 windows.
  from: new Date('2024-06-02T00:00:00Z'),
  to: new Date('2024-06-12T00:00:00Z'),
  windowHours: 48,
  now: new Date('2024-06-30T12:00:00Z'),
});

describe('a clean backfill', () => {
  it('makes exactly one call per planned chunk and lands every hour', async () => {
    const { runId, estimate } = await planRun(fx.app.db, request(), []);
    expect(estimate.chunks).toBe(2 * 2 * 5);
    const worker = IngestWorker.start(fx.app, { concurrency: 4 });
    try {
      const progress = await waitForRun(fx.app.db, runId!);
      expect(progress).toMatchObject({ status: 'done', done: 20, failed: 0, calls: 20 });
    } finally {
      await worker.close();
    }
    expect(fx.simulator.stats().total).toBe(20);
    const prints = await fx.fingerprint();
    expect(prints.weather_rows).toBe(String(2 * 240));
  });

  it('a second identical backfill plans nothing and makes zero calls', async () => {
    fx.simulator.resetStats();
    const { runId, estimate, notes } = await planRun(fx.app.db, request(), []);
    expect(estimate.chunks).toBe(0);
    // No run is written for nothing to do.
    expect(runId).toBeUndefined();
    expect(notes.some((n) => /the ledger holds all of it/.test(n))).toBe(true);
    expect(fx.simulator.stats().total).toBe(0);
  });
});
