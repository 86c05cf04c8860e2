import { beforeEach, describe, expect, it } from 'vitest';
import { startBackfill, type BackfillRequest } from '../../src/runs/start-backfill.js';
import type { RateLimitOption } from '../../src/simulator/simulator-options.js';
import type { App } from '../../src/app.js';
import { backfillWindows, useBackfillFixture } from '../harness/backfill-fixture.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { runChunks } from './run-chunks.js';
import { factRows, warehouseDigest } from './warehouse-digest.js';
import { expectThrottledRunRodeOut } from './expect-throttled-run.js';
import { workRun } from '../harness/work-run.js';

// The simulator's rate-limit windows follow its clock: a frozen `now` would never open a new
// window, and every call after the first `max` would be refused for ever. History coverage does
// not need a frozen clock (every requested hour is long past).
const fx = useBackfillFixture({ now: null });

/** 2 datasets × 2 locations × `windows` 48-hour windows, starting on `day` (a 48-hour grid day). */
function request(day: string, windows: number): BackfillRequest {
  return { ...backfillWindows(day, windows), locations: fx.locations };
}

/** Fact rows the runs of this file were planned to land. */
let landedRows = 0;

/** Backfills `req` with one worker of `app` and returns the finished run's ledger. */
async function backfill(app: App, req: BackfillRequest) {
  fx.simulator.resetStats();
  fx.simulator.resetLimits();
  const start = await startBackfill(app, req);
  const progress = await workRun(app, start.runId, { timeoutMs: 50_000 });
  landedRows += start.estimate.expectedRows;
  return { start, progress, chunks: await runChunks(app.db, start.runId!) };
}

function limitSimulator(rateLimit: RateLimitOption): void {
  fx.simulator.setOptions({ rateLimit });
}

// Each test starts from an empty queue: no job, pause or limiter window left over from the last
// one (BullMQ's own API, on either backend).
beforeEach(async () => {
  const queue = fx.app.queues.queue(QUEUE_NAMES.ingest);
  await queue.obliterate({ force: true });
  await queue.removeRateLimitKey();
});

describe('a service that answers 429', () => {
  it('pauses every worker instead of failing: no attempt used, no chunk failed', async () => {
    limitSimulator({ max: 5, durationMs: 1_000, retryAfter: 'sometimes' });
    const { start, progress, chunks } = await backfill(fx.app, request('2024-06-02', 3));
    expect(start.estimate.chunks).toBe(12);
    expect(progress).toMatchObject({ status: 'done', done: 12, failed: 0 });
    expect(progress.rows).toBe(start.estimate.expectedRows);

    expectThrottledRunRodeOut(fx.simulator.stats(), chunks, 12);
  });

  it('without Retry-After, backs off instead of hot-looping', async () => {
    limitSimulator({ max: 5, durationMs: 1_000, retryAfter: 'never' });
    const { progress, chunks } = await backfill(fx.app, request('2024-06-08', 3));
    expect(progress).toMatchObject({ status: 'done', done: 12, failed: 0 });

    const stats = fx.simulator.stats();
    expect(stats.byStatus['429']).toBeGreaterThan(0);
    expect(stats.total).toBeLessThan(5 * 12);
    expect(new Set(chunks.map((c) => c.attempts))).toEqual(new Set([1]));
  });

  it('with ENVDATA_RATE_LIMIT at the service limit, provokes no 429 at all', async () => {
    // Both sides count in fixed windows that open with their first call; the worker's limiter
    // keeps a margin of a tenth of the window (200 ms here) for the time between a job starting
    // and its request arriving, which a heavily loaded test machine stretches.
    limitSimulator({ max: 10, durationMs: 2_000, retryAfter: 'always' });
    const app = fx.newApp({ ENVDATA_RATE_LIMIT: '10/2s' });
    const req = request('2024-06-14', 5);
    const { start, progress } = await backfill(app, req);
    expect(start.estimate.chunks).toBe(20);
    expect(progress).toMatchObject({ status: 'done', done: 20, failed: 0 });
    expect(fx.simulator.stats().byStatus).toEqual({ '200': 20 });
    expect(progress.rows).toBe(start.estimate.expectedRows);
    expect(factRows(await warehouseDigest(app.db))).toBe(landedRows);
  });
});
