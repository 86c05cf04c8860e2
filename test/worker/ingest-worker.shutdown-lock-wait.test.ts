import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { configFromDefaults } from '../../src/config/load-config.js';
import { settlesWithin } from '../../src/lifecycle/settles-within.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/start-simulator.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { runChunks } from '../backfill/run-chunks.js';
import { BERLIN } from '../fixtures/places.js';
import { addPointLocation } from '../harness/add-point-location.js';
import { backfillRange } from '../harness/backfill-fixture.js';
import { pollUntil } from '../harness/poll-until.js';
import {
  startPrivatePostgres,
  startPrivateRedis,
  type PrivatePostgres,
  type PrivateRedis,
} from '../harness/private-services.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { withoutRedis } from '../harness/test-environment.js';
import { waitForRun } from '../harness/wait-for-run.js';

// A Postgres and a Redis of this file's own: the test holds a lock on envdata.coverage, which on
// the suite's shared Postgres would stall every other file's landings.
const SHUTDOWN_TIMEOUT_MS = 3_000;
let postgres: PrivatePostgres;
let redis: PrivateRedis;
let simulator: RunningSimulator;
let control: App;

const env = (extra: Record<string, string> = {}): Record<string, string> => ({
  DATABASE_URL: postgres.url('envdata'),
  REDIS_URL: redis.url,
  ENVDATA_QUEUE_BACKEND: 'redis',
  ENVDATA_QUEUE_PREFIX: 'lock-wait',
  ENVDATA_BASE_URL: simulator.url,
  ENVDATA_API_KEY: DEMO_API_KEY,
  ENVDATA_RATE_LIMIT: 'off',
  ENVDATA_ARCHIVE_RAW: 'false',
  ENVDATA_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  LOG_LEVEL: 'silent',
  ...extra,
});

beforeAll(async () => {
  [postgres, redis, simulator] = await Promise.all([
    startPrivatePostgres(),
    startPrivateRedis(),
    startSimulator({ now: '2024-06-30T12:00:00Z' }),
  ]);
  const migrated = await runCliInProcess(['migrate'], env());
  expect(migrated.code, migrated.stderr).toBe(0);
  control = createApp(configFromDefaults(env()));
}, 120_000);

afterAll(async () => {
  await control?.close();
  await simulator?.close();
  await Promise.all([postgres?.remove(), redis?.remove()]);
});

/**
 * Backends of envdata's pools waiting for a lock, as the server sees them. Read by the control
 * app, never by the session holding the lock: inside a transaction pg_stat_activity is a
 * snapshot taken at its first read.
 */
async function waitingForLock(): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_stat_activity
    where application_name = 'envdata' and wait_event_type = 'Lock'`.execute(control.db);
  return rows[0]!.n;
}

describe.skipIf(withoutRedis())(
  'a worker stopped while its landing waits for a lock in Postgres',
  () => {
    it('cancels the landing on the server at the deadline, hands its chunks back unused and stops within a second more', async () => {
      const berlin = await addPointLocation(control.db, BERLIN);
      // 2 datasets × 1 location × 1 window = 2 chunks.
      const { runId } = await startBackfill(control, {
        ...backfillRange('2024-06-02', '2024-06-04'),
        locations: [berlin],
      });
      // Another session holds envdata.coverage: landings may read it, none may write it.
      const locker = new pg.Client({ connectionString: postgres.url('envdata') });
      await locker.connect();
      let locked = true;
      const unlock = async () => {
        if (!locked) return;
        locked = false;
        await locker.query('rollback');
      };
      try {
        await locker.query('begin');
        await locker.query('lock table envdata.coverage in exclusive mode');

        // One connection: the landing that waits holds the pool's only one.
        const workerApp = createApp(configFromDefaults(env({ DATABASE_POOL_MAX: '1' })));
        await workerApp.start({ worker: { concurrency: 2 } });
        await pollUntil(
          async () => {
            const n = await waitingForLock();
            return n > 0 ? { done: n } : { last: n };
          },
          { timeoutMs: 10_000, describe: () => 'no landing came to wait for the lock' },
        );
        const running = (await runChunks(control.db, runId!)).filter((c) => c.status === 'running');
        expect(running.length).toBeGreaterThan(0);

        const stopStarted = Date.now();
        let stoppedAt: number | undefined;
        const stopped = workerApp.stop().then(() => {
          stoppedAt = Date.now();
        });
        // Before the fix the stop waits for the lock: release it then, so the file can end.
        const inTime = await settlesWithin(stopped, SHUTDOWN_TIMEOUT_MS + 5_000);
        if (!inTime) await unlock();
        await stopped;
        const stopMs = stoppedAt! - stopStarted;
        expect(stopMs).toBeGreaterThanOrEqual(SHUTDOWN_TIMEOUT_MS);
        expect(stopMs).toBeLessThanOrEqual(SHUTDOWN_TIMEOUT_MS + 1_000);

        // Cancelled on the server, not only abandoned by the client: nothing of envdata waits on.
        expect(await waitingForLock()).toBe(0);
        // The chunks are back, no attempt used, and nothing of them landed (rolled back).
        const chunks = await runChunks(control.db, runId!);
        expect(chunks.map((c) => `${c.status} ${c.attempts}`).sort()).toEqual([
          'queued 0',
          'queued 0',
        ]);
        const { rows } = await sql<{ facts: number; coverage: number }>`
        select (select count(*)::int from envdata.weather_hourly)
             + (select count(*)::int from envdata.pollen_hourly) as facts,
               (select count(*)::int from envdata.coverage) as coverage`.execute(control.db);
        expect(rows[0]).toEqual({ facts: 0, coverage: 0 });
        expect((await runProgress(control.db, runId!))?.failed).toBe(0);
        // Their jobs are back in the queue, waiting, with no attempt used.
        const queue = control.queues.queue(QUEUE_NAMES.ingest);
        for (const { chunk_id: chunkId } of running) {
          const job = await queue.getJob(`chunk-${chunkId}`);
          expect(job?.attemptsMade).toBe(0);
          expect(await job?.getState()).toMatch(/^(waiting|prioritized)$/);
        }
      } finally {
        await unlock();
        await locker.end();
      }

      // The lock gone, another worker lands them: each at its first attempt.
      const second = IngestWorker.start(control, { concurrency: 2 });
      try {
        const progress = await waitForRun(control.db, runId!, { timeoutMs: 30_000 });
        expect(progress).toMatchObject({ status: 'done', done: 2, failed: 0 });
      } finally {
        await second.close();
      }
      const done = await runChunks(control.db, runId!);
      expect(done.map((c) => `${c.status} ${c.attempts}`)).toEqual(['done 1', 'done 1']);
    }, 90_000);
  },
);
