import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunProgress } from '../../src/ledger/run-progress.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { useBackfillFixture, type BackfillFixture } from '../harness/backfill-fixture.js';
import { startPrivateRedis, type PrivateRedis } from '../harness/private-services.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { withoutRedis } from '../harness/test-environment.js';
import { waitForRun } from '../harness/wait-for-run.js';

// €0.01 a call and €0.50 a month: the budget pays for 50 calls this (real, calendar) month.
const MONEY = {
  ENVDATA_PRICE_PER_CALL: '0.01 EUR',
  ENVDATA_BUDGET: '0.50 EUR/month',
  ENVDATA_RATE_LIMIT: 'off',
};
// 30 calls a (real, UTC) day, 10 of them kept for the sync: a backfill stops at 20.
const QUOTA = { ENVDATA_QUOTA: '30/day', ENVDATA_SYNC_RESERVE: '10', ENVDATA_RATE_LIMIT: 'off' };

// A Redis of this file's own, restarted empty (no persistence) mid-run: never the shared one.
let redis: PrivateRedis | undefined;
beforeAll(async () => {
  if (!withoutRedis()) redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.remove();
});

const money = useBackfillFixture({ requestLog: 1_000 }, MONEY, { queueBackend: 'redis' });
const quota = useBackfillFixture({ requestLog: 1_000 }, QUOTA, { queueBackend: 'redis' });

/** `envdata backfill` of both datasets at the fixture's two locations over `[from, to)`. */
function backfill(from: string, to: string): string[] {
  return ['backfill', '--dataset', 'all', '--from', from, '--to', to];
}

/**
 * `envdata backfill ARGS` on the private Redis, then a worker until the run is held by a quota
 * or the budget with `done` chunks done (or ends): the run's progress then. The hold a run
 * already showed is cleared first, so the one awaited is this worker's.
 */
async function backfillUntilHeld(
  fx: BackfillFixture,
  env: Record<string, string>,
  args: readonly string[],
  done: number,
): Promise<{ runId: number; progress: RunProgress }> {
  const redisEnv = { ...env, REDIS_URL: redis!.url };
  const started = await runCliInProcess(args, fx.cliEnv(redisEnv));
  expect(started.code, started.stderr).toBe(0);
  const runId = Number(/run (\d+):/.exec(started.stdout)![1]);
  await sql`update envdata.run set waiting_reason = null, waiting_until = null
    where run_id = ${runId}`.execute(fx.app.db);
  const app = fx.newApp(redisEnv);
  const worker = IngestWorker.start(app, { concurrency: 2 });
  try {
    const progress = await waitForRun(app.db, runId, {
      timeoutMs: 30_000,
      until: (p) => p.status !== 'running' || (p.waiting !== null && p.done >= done),
    });
    return { runId, progress };
  } finally {
    await worker.close();
  }
}

/** Restarts the private Redis: it comes back empty, every key (the queue's too) lost. */
async function restartRedisEmpty(): Promise<void> {
  await redis!.stop();
  await redis!.start();
}

/** `envdata status --json`'s quota windows, on the private Redis. */
async function statusQuota(fx: BackfillFixture, env: Record<string, string>) {
  const status = await runCliInProcess(
    ['status', '--json'],
    fx.cliEnv({ ...env, REDIS_URL: redis!.url }),
  );
  return JSON.parse(status.stdout).quota as {
    windows: { window: string; usedCalls: number; usedCost: string | null }[];
  };
}

// Redis only (a private Redis restarted): project `core`, not both legs.
describe.skipIf(withoutRedis())(
  'a Redis restarted empty keeps no money and no quota [redis]',
  () => {
    it('the budget spent stays spent: the run resumed makes no call past the budget, and status says so', async () => {
      // 2 datasets × 2 locations × 15 windows of 48 h = 60 calls = €0.60: over the budget.
      const args = [...backfill('2024-05-01', '2024-05-31'), '--allow-over-budget'];
      const first = await backfillUntilHeld(money, MONEY, args, 50);
      expect(first.progress).toMatchObject({ status: 'running', done: 50 });
      expect(first.progress.waiting?.reason).toBe('budget (month)');
      expect(money.simulator.stats().total).toBe(50);

      await restartRedisEmpty();
      // The same backfill again: it resumes its run and dispatches its 10 chunks left anew.
      const again = await backfillUntilHeld(money, MONEY, args, 50);
      expect(again.runId).toBe(first.runId);
      expect(again.progress).toMatchObject({ status: 'running', done: 50 });
      expect(again.progress.waiting?.reason).toBe('budget (month)');
      // Not one call more than the budget pays for.
      expect(money.simulator.stats().total).toBe(50);

      const text = await runCliInProcess(
        ['status'],
        money.cliEnv({ ...MONEY, REDIS_URL: redis!.url }),
      );
      expect(text.stdout).toMatch(
        /month {2}50 of 50 calls \(the budget’s calls\), €0\.50 spent, budget €0\.50/,
      );
      const { windows } = await statusQuota(money, MONEY);
      expect(windows).toEqual([
        expect.objectContaining({ window: 'month', usedCalls: 50, usedCost: '0.5' }),
      ]);
    }, 90_000);

    it('the day’s count stays at the quota less the reserve: the backfill does not take the sync’s calls', async () => {
      // 2 datasets × 2 locations × 10 windows of 48 h = 40 calls; the line is at 20.
      const args = backfill('2024-06-02', '2024-06-22');
      const first = await backfillUntilHeld(quota, QUOTA, args, 20);
      expect(first.progress).toMatchObject({ status: 'running', done: 20 });
      expect(first.progress.waiting?.reason).toBe('quota (day)');
      expect(quota.simulator.stats().total).toBe(20);

      await restartRedisEmpty();
      const again = await backfillUntilHeld(quota, QUOTA, args, 20);
      expect(again.runId).toBe(first.runId);
      expect(again.progress).toMatchObject({ status: 'running', done: 20 });
      expect(again.progress.waiting?.reason).toBe('quota (day)');
      expect(quota.simulator.stats().total).toBe(20);
      const { windows } = await statusQuota(quota, QUOTA);
      expect(windows).toEqual([expect.objectContaining({ window: 'day', usedCalls: 20 })]);
    }, 90_000);
  },
);
