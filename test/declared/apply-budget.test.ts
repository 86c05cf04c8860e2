import { writeFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runProgress } from '../../src/ledger/run-progress.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { useTempDir } from '../harness/temp-dir.js';
import { workRun } from '../harness/work-run.js';
import { BERLIN, BRISBANE } from '../fixtures/places.js';

// €0.50 a call and €5 a month: the budget pays for 10 calls this (real, calendar) month.
const MONEY = {
  ENVDATA_PRICE_PER_CALL: '0.5 EUR',
  ENVDATA_BUDGET: '5 EUR/month',
  ENVDATA_RATE_LIMIT: 'off',
};
const fx = useBackfillFixture({ requestLog: 1_000 }, MONEY);
const dir = useTempDir('envdata-apply-budget-');
const envdata = (args: string[]) => runCliInProcess(args, fx.cliEnv(MONEY));

/**
 * The fixture's two locations as they are registered, with 30 days of weather: 2 locations ×
 * 15 or 16 windows of 48 h (with the hours of today) = 30 or 32 calls, three times the budget.
 */
async function declareOverBudget(): Promise<string> {
  const file = dir.path('envdata.yaml');
  const point = (p: { name: string; lat: number; lng: number }) =>
    `  - { name: ${p.name}, lat: ${p.lat}, lng: ${p.lng} }`;
  await writeFile(
    file,
    `version: 1\nlocations:\n${point(BERLIN)}\n${point(BRISBANE)}\ndatasets:\n  weather: { since: -30d }\n`,
  );
  return file;
}

/** Runs, chunks and locations the ledger holds. */
async function ledgerRows(): Promise<{ runs: number; chunks: number; locations: number }> {
  const { rows } = await sql<{ runs: number; chunks: number; locations: number }>`
    select (select count(*)::int from envdata.run) as runs,
           (select count(*)::int from envdata.chunk) as chunks,
           (select count(*)::int from envdata.location) as locations`.execute(fx.app.db);
  return rows[0]!;
}

const OVER = "left of this month's budget of €5.00 (ENVDATA_BUDGET)";

describe('one money guard on every command that spends (ENVDATA_BUDGET)', () => {
  it('apply over the budget is refused as backfill is: exit 2, nothing written, no call; plan says so', async () => {
    const file = await declareOverBudget();
    const plan = await envdata(['plan', '-f', file]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('this plan goes OVER it');
    expect(plan.stdout).toContain(
      'apply would be refused (over the budget): pass --allow-over-budget to apply anyway',
    );

    const before = await ledgerRows();
    const calls = fx.simulator.stats().total;
    const refused = await envdata(['apply', '-f', file, '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/applying \S+ would cost €(15|16)\.00, beyond/);
    expect(refused.stderr).toContain(
      `, beyond the €5.00 ${OVER}: nothing was written. ` +
        `Declare less in ${file} (a later since, fewer locations), raise ENVDATA_BUDGET, ` +
        'or pass --allow-over-budget to start it anyway',
    );
    expect(refused.stdout).not.toContain('applied');
    expect(await ledgerRows()).toEqual(before);
    expect(fx.simulator.stats().total).toBe(calls);
  });

  it('apply --allow-over-budget starts the run, to stop at the budget as backfill does', async () => {
    const file = await declareOverBudget();
    const started = await envdata(['apply', '-f', file, '--yes', '--allow-over-budget']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toContain(
      'over the budget, started with --allow-over-budget: it stops at the budget (10 calls a month) and waits with "budget (month)" until the month resets',
    );
    const runId = Number(/, run (\d+)/.exec(started.stdout)![1]);
    expect((await runProgress(fx.app.db, runId))?.status).toMatch(/planning|running/);
    const cancelled = await envdata(['cancel', String(runId)]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
  });

  it('retry over the budget is refused the same way; --allow-over-budget re-queues', async () => {
    // One pollen chunk that fails twice (503) with two attempts: a failed run of 1 failed chunk.
    const brisbane = fx.locations.find((l) => l.name === 'Brisbane')!;
    const app = fx.newApp({ ...MONEY, ENVDATA_MAX_ATTEMPTS: '2', ENVDATA_RETRY_BASE_MS: '20' });
    fx.simulator.addFaultScripts('pollen-history:error=503x2');
    const failedRun = await startBackfill(app, {
      ...backfillRange('2021-01-03', '2021-01-05', { datasets: ['pollen'] }),
      locations: [brisbane],
    });
    const runId = failedRun.runId!;
    expect(await workRun(app, runId, { concurrency: 1 })).toMatchObject({
      status: 'failed',
      failed: 1,
    });

    // Alone it fits (€0.50), but an unfinished run (no worker) still plans €5.00 of calls.
    const open = await envdata([
      ...['backfill', '--dataset', 'weather', '--from', '2024-06-02', '--to', '2024-06-12'],
      '--allow-over-budget',
    ]);
    expect(open.code, open.stderr).toBe(0);
    const openRun = Number(/run (\d+):/.exec(open.stdout)![1]);
    const calls = fx.simulator.stats().total;
    const refused = await envdata(['retry', String(runId)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `retrying the 1 failed chunk(s) of run ${runId} would cost €0.50, beyond the €0.00 ${OVER}, counting `,
    );
    expect(refused.stderr).toContain('still planned by 1 unfinished run: nothing was written');
    expect(refused.stderr).toContain('--allow-over-budget');
    expect(await runProgress(fx.app.db, runId)).toMatchObject({ status: 'failed', failed: 1 });
    expect(fx.simulator.stats().total).toBe(calls);

    const retried = await envdata(['retry', String(runId), '--allow-over-budget']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toContain(`1 failed chunk(s) of run ${runId} re-queued`);
    expect(retried.stdout).toContain('over the budget, started with --allow-over-budget');
    expect(await runProgress(fx.app.db, runId)).toMatchObject({ status: 'running', failed: 0 });

    for (const run of [runId, openRun]) {
      const cancelled = await envdata(['cancel', String(run)]);
      expect(cancelled.code, cancelled.stderr).toBe(0);
    }
  }, 60_000);
});
