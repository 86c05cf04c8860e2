import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { QUEUE_BACKENDS } from '../../src/config/config.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { startBackfill, type BackfillRequest } from '../../src/runs/start-backfill.js';
import type { Location } from '../../src/locations/location.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { useBackfillFixture, type BackfillFixture } from '../harness/backfill-fixture.js';
import { withoutRedis } from '../harness/test-environment.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { runChunks } from './run-chunks.js';
import { expectThrottledRunRodeOut } from './expect-throttled-run.js';

/**
 * The same backfills on both queue backends (ENVDATA_QUEUE_BACKEND): what lands, the calls made,
 * the 429 pause of every worker and the shared rate limit must not depend on where BullMQ keeps
 * the queue. The file compares the two, so without a Redis it is skipped (the Postgres leg of
 * the other backfill files still runs).
 */

/** 2 datasets × 2 locations × `windows` 48-hour windows, starting on `day` (a 48-hour grid day). */
function request(locations: readonly Location[], day: string, windows: number): BackfillRequest {
  const from = new Date(`${day}T00:00:00Z`);
  return {
    datasets: ['pollen', 'weather'],
    locations,
    from,
    to: new Date(from.getTime() + windows * 48 * 3_600_000),
    windowHours: 48,
  };
}

/** Backfills `req` with one worker per app and returns the finished run's ledger. */
async function backfill(apps: readonly App[], req: BackfillRequest) {
  const [first] = apps;
  // No pause or limiter window left over from an earlier test (BullMQ's API on both backends).
  await first!.queues.queue(QUEUE_NAMES.ingest).removeRateLimitKey();
  const start = await startBackfill(first!, req);
  const workers = apps.map((app) => IngestWorker.start(app, { concurrency: 4 }));
  try {
    const progress = await waitForRun(first!.db, start.runId!, { timeoutMs: 50_000 });
    return { start, progress, chunks: await runChunks(first!.db, start.runId!) };
  } finally {
    await Promise.all(workers.map((w) => w.close()));
  }
}

const clean = Object.fromEntries(
  QUEUE_BACKENDS.map((backend) => [backend, useBackfillFixture({}, {}, { queueBackend: backend })]),
) as Record<(typeof QUEUE_BACKENDS)[number], BackfillFixture>;

describe.skipIf(withoutRedis()).each(QUEUE_BACKENDS)('a clean backfill [%s]', (backend) => {
  it('makes one call per chunk and lands every hour', async () => {
    const fx = clean[backend];
    expect(fx.app.config.queueBackend).toBe(backend);
    const { start, progress, chunks } = await backfill(
      [fx.app],
      request(fx.locations, '2024-06-02', 5),
    );
    expect(start.estimate.chunks).toBe(20);
    expect(progress).toMatchObject({ status: 'done', done: 20, failed: 0, calls: 20 });
    expect(progress.rows).toBe(start.estimate.expectedRows);
    expect(chunks.map((c) => c.attempts)).toEqual(chunks.map(() => 1));
    expect(fx.simulator.stats().total).toBe(20);
    // BullMQ's tables are in this database only on the postgres backend.
    const { rows } = await sql<{ here: boolean }>`
      select to_regclass('envdata_queue.job') is not null as here`.execute(fx.app.db);
    expect(rows[0]!.here).toBe(backend === 'postgres');
  });
});

describe.skipIf(withoutRedis())('the warehouses of both backends', () => {
  it('are identical to the last row [redis] [postgres]', async () => {
    const [redis, postgres] = await Promise.all([
      clean.redis.fingerprint(),
      clean.postgres.fingerprint(),
    ]);
    expect(redis.weather_rows).toBe(String(2 * 240));
    expect(postgres).toEqual(redis);
  });
});

// The simulator's rate-limit windows follow its clock: a frozen `now` would never open a new one.
const limited = useBackfillFixture({ now: null }, {}, { queueBackend: 'postgres' });

describe.skipIf(withoutRedis())('a service that answers 429 [postgres]', () => {
  it('pauses every worker instead of failing: no attempt used, no chunk failed', async () => {
    const fx = limited;
    fx.simulator.resetStats();
    fx.simulator.resetLimits();
    fx.simulator.setOptions({ rateLimit: { max: 5, durationMs: 1_000, retryAfter: 'sometimes' } });
    const { start, progress, chunks } = await backfill(
      [fx.app, fx.newApp()],
      request(fx.locations, '2024-06-02', 3),
    );
    expect(start.estimate.chunks).toBe(12);
    expect(progress).toMatchObject({ status: 'done', done: 12, failed: 0 });
    expectThrottledRunRodeOut(fx.simulator.stats(), chunks, 12);
  });

  it('shares ENVDATA_RATE_LIMIT between two worker processes: no 429 at the service limit, every call in the budget table', async () => {
    const fx = limited;
    fx.simulator.resetStats();
    fx.simulator.resetLimits();
    fx.simulator.setOptions({ rateLimit: { max: 10, durationMs: 2_000, retryAfter: 'always' } });
    // The second rule goes to the call budget, kept in envdata.call_budget on this backend.
    const env = { ENVDATA_RATE_LIMIT: '10/2s,1000/h' };
    const { start, progress } = await backfill(
      [fx.newApp(env), fx.newApp(env)],
      request(fx.locations, '2024-06-14', 5),
    );
    expect(start.estimate.chunks).toBe(20);
    expect(progress).toMatchObject({ status: 'done', done: 20, failed: 0 });
    expect(fx.simulator.stats().byStatus).toEqual({ '200': 20 });
    const { rows } = await sql<{ calls: number }>`
      select coalesce(sum(used), 0)::int as calls from envdata.call_budget
       where duration_ms = 3600000`.execute(fx.app.db);
    expect(rows[0]!.calls).toBe(20);
  });
});
