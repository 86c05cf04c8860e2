import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { configFromDefaults } from '../../src/config/load-config.js';
import { insertLocation } from '../../src/locations/insert-location.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { recordShareUnits } from '../../src/ledger/share-unit.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/start-simulator.js';
import { NIGHTLY_SYNC_SCHEDULER_ID } from '../../jobs/nightly-sync-job.js';
import { pollUntil } from '../harness/poll-until.js';
import {
  startPrivatePostgres,
  startPrivateRedis,
  type PrivatePostgres,
  type PrivateRedis,
} from '../harness/private-services.js';
import { withoutRedis } from '../harness/test-environment.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { startEnvdata, type RunningEnvdata } from '../harness/start-envdata.js';
import { waitForRun } from '../harness/wait-for-run.js';

// Long-running commands against a Postgres and a Redis of this file's own, which it stops and
// starts: the suite's shared services are never touched.
let pg: PrivatePostgres;
let redis: PrivateRedis;
let simulator: RunningSimulator;
let app: App;
const children: RunningEnvdata[] = [];
const PREFIX = 'outage';

const env = (extra: Record<string, string> = {}): Record<string, string> => ({
  DATABASE_URL: pg.url('envdata'),
  REDIS_URL: redis.url,
  ENVDATA_QUEUE_PREFIX: PREFIX,
  ENVDATA_BASE_URL: simulator.url,
  ENVDATA_API_KEY: DEMO_API_KEY,
  ENVDATA_RATE_LIMIT: '4/s',
  ENVDATA_RETRY_BASE_MS: '50',
  ENVDATA_JOB_LOCK_MS: '3000',
  ENVDATA_ARCHIVE_RAW: 'false',
  LOG_FORMAT: 'json',
  ...extra,
});

function start(args: readonly string[], extra: Record<string, string> = {}): RunningEnvdata {
  const running = startEnvdata(args, env(extra));
  children.push(running);
  return running;
}

const UNAVAILABLE = /"msg":"(Postgres|Redis) is unavailable \(/g;
const BACK = /"msg":"(Postgres|Redis)( and (Postgres|Redis))? answers? again after/g;

/** What an outage must look like on standard error: one line down, one line back, no bug report. */
function expectOneOutage(stderr: string, service: 'Postgres' | 'Redis'): void {
  const down = [...stderr.matchAll(UNAVAILABLE)].map((m) => m[1]);
  expect(down).toEqual([service]);
  expect([...stderr.matchAll(BACK)]).toHaveLength(1);
  expect(stderr).not.toMatch(/please report it/);
  // No stack traces: a stack is a bug, an outage is one line.
  expect(stderr).not.toMatch(/\\n\s+at /);
  expect(stderr).not.toMatch(/\n\s+at /);
}

beforeAll(async () => {
  [pg, redis, simulator] = await Promise.all([
    startPrivatePostgres(),
    startPrivateRedis(),
    startSimulator({}),
  ]);
  const migrated = await runEnvdata(['migrate'], env());
  expect(migrated.code, migrated.stderr).toBe(0);
  app = createApp(
    configFromDefaults({
      DATABASE_URL: pg.url('envdata'),
      REDIS_URL: redis.url,
      ENVDATA_QUEUE_PREFIX: PREFIX,
      LOG_LEVEL: 'silent',
    }),
  );
  for (const l of [
    { name: 'Berlin', lat: 52.52, lng: 13.405, countryCode: 'DE' },
    { name: 'Brisbane', lat: -27.4698, lng: 153.0251, countryCode: 'AU' },
  ]) {
    await insertLocation(app.db, { ...l, registeredBy: 'coordinates' });
  }
  // The simulator writes fractions. A latest reading is one record, and at this hour both may
  // send cloud cover as only 0 or 1 (about 1.6 % of hours), which no unit reads: with nothing
  // remembered, `sync --wait` would then truthfully exit 1 for a value set aside. This file is
  // about outages, so the units are known from the start, as in any warehouse after its first
  // sync.
  for (const source of ['latest', 'forecast_72h'] as const) {
    await recordShareUnits(app.db, 'weather', source, {
      humidity: 'fraction',
      cloudCover: 'fraction',
      precipProbability: 'fraction',
    });
  }
}, 120_000);

afterEach(() => {
  // A test that failed must not leave its process working on the next test's queue.
  for (const c of children.splice(0)) if (c.child.exitCode === null) c.child.kill('SIGKILL');
});

afterAll(async () => {
  await app?.close();
  await simulator?.close();
  await Promise.all([pg?.remove(), redis?.remove()]);
});

/** The chunks of a run by status and attempts, e.g. `{ 'done 1': 40 }`. */
async function chunkStates(runId: number): Promise<Record<string, number>> {
  const { rows } = await sql<{ state: string; n: number }>`
    select status || ' ' || attempts as state, count(*)::int as n from envdata.chunk
    where run_id = ${runId} group by 1`.execute(app.db);
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

// A Redis of this file's own (redis-server): where no Redis runs, none is installed either.
describe.skipIf(withoutRedis())(
  'long-running commands during an outage of Postgres or Redis',
  () => {
    // First: with nothing ingested yet, a sync reads the lookback only (a few chunks).
    it('sync --now --wait rides out Redis crashing and coming back empty', async () => {
      const sync = start(['sync', '--now', '--wait'], { ENVDATA_SYNC_LOOKBACK: '240h' });
      const runId = Number((await sync.waitFor(/^sync run (\d+):/m))[1]);
      await waitForRun(app.db, runId, { until: (p) => p.done >= 2, timeoutMs: 60_000 });

      await redis.stop();
      await sync.waitFor(UNAVAILABLE_ONCE('Redis'));
      await redis.start();

      const { code } = await sync.exited;
      expect(code, sync.stderr() + sync.stdout()).toBe(0);
      expect(sync.stdout()).toMatch(new RegExp(`run ${runId} \\(sync\\) done`));
      expectOneOutage(sync.stderr(), 'Redis');
    }, 120_000);

    it('backfill --wait rides out Postgres stopping (pg_ctl stop -m immediate) and finishes the run', async () => {
      const backfill = start([
        'backfill',
        '--dataset',
        'all',
        '--from',
        '2024-03-02',
        '--to',
        '2024-03-22',
        '--wait',
      ]);
      const runId = Number((await backfill.waitFor(/^run (\d+):/m))[1]);
      await waitForRun(app.db, runId, { until: (p) => p.done >= 2, timeoutMs: 60_000 });

      await pg.stop();
      await backfill.waitFor(UNAVAILABLE_ONCE('Postgres'));
      await pg.start();

      const { code } = await backfill.exited;
      expect(code, backfill.stderr()).toBe(0);
      expect(backfill.stdout()).toMatch(new RegExp(`run ${runId} \\(backfill\\) done: 40/40`));
      expectOneOutage(backfill.stderr(), 'Postgres');
      // A chunk caught by the outage went back to the queue: no attempt was used.
      expect(await chunkStates(runId)).toEqual({ 'done 1': 40 });
    }, 120_000);

    it('a worker rides out both, one line each, and stops promptly on SIGINT while Redis is down', async () => {
      const backfill = await runEnvdata(
        ['backfill', '--dataset', 'all', '--from', '2024-04-02', '--to', '2024-04-22'],
        env(),
      );
      expect(backfill.code, backfill.stderr).toBe(0);
      const runId = Number(/^run (\d+):/m.exec(backfill.stdout)![1]);
      const worker = start(['worker', '--concurrency', '4'], { ENVDATA_RATE_LIMIT: '2/s' });
      await waitForRun(app.db, runId, { until: (p) => p.done >= 2, timeoutMs: 60_000 });

      await pg.stop();
      await worker.waitFor(UNAVAILABLE_ONCE('Postgres'));
      await pg.start();
      await worker.waitFor(/"msg":"Postgres answers again/);
      await waitForRun(app.db, runId, { until: (p) => p.done >= 10, timeoutMs: 60_000 });

      await redis.stop();
      await worker.waitFor(UNAVAILABLE_ONCE('Redis'));
      const signalled = Date.now();
      worker.child.kill('SIGINT');
      const { code } = await worker.exited;
      const stoppedInMs = Date.now() - signalled;
      await redis.start();

      expect(code, worker.stderr()).toBe(0);
      expect(stoppedInMs).toBeLessThan(3_000);
      const stderr = worker.stderr();
      expect([...stderr.matchAll(UNAVAILABLE)].map((m) => m[1])).toEqual(['Postgres', 'Redis']);
      expect(stderr).not.toMatch(/please report it|\n\s+at /);
      // Nothing was lost: what the worker held goes back to the queue, untouched in the ledger.
      const states = await chunkStates(runId);
      expect(Object.keys(states).every((s) => s === 'done 1' || s.endsWith(' 0'))).toBe(true);
    }, 150_000);

    it('the scheduler rides out a Redis crash and schedules the nightly sync again', async () => {
      const scheduler = start(['scheduler']);
      await scheduler.waitFor(/nightly sync scheduled/);
      await redis.stop();
      await scheduler.waitFor(UNAVAILABLE_ONCE('Redis'));
      await redis.start();
      await scheduler.waitFor(/"msg":"Redis answers again/);
      // The Redis that came back is empty: the schedule is back only if the scheduler put it back.
      const queue = app.queues.queue(QUEUE_NAMES.sync);
      await pollUntil(
        async () => {
          const keys = (await queue.getJobSchedulers()).map((s) => s.key);
          return keys.includes(NIGHTLY_SYNC_SCHEDULER_ID) ? { done: keys } : { last: keys };
        },
        { timeoutMs: 20_000, describe: (keys) => `schedulers after the outage: ${String(keys)}` },
      );
      scheduler.child.kill('SIGTERM');
      const { code } = await scheduler.exited;
      expect(code, scheduler.stderr()).toBe(0);
      expectOneOutage(scheduler.stderr(), 'Redis');
    }, 120_000);
  },
);

/** The first "… is unavailable" line for `service`. */
function UNAVAILABLE_ONCE(service: 'Postgres' | 'Redis'): RegExp {
  return new RegExp(`"msg":"${service} is unavailable \\(`);
}
