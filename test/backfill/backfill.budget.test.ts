import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { checkAlerts } from '../../src/notify/check-alerts.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { runChunks } from './run-chunks.js';

// €0.50 a call and €5 a month: the budget pays for 10 calls this (real, calendar) month.
const MONEY = {
  ENVDATA_PRICE_PER_CALL: '0.5 EUR',
  ENVDATA_BUDGET: '5 EUR/month',
  ENVDATA_RATE_LIMIT: 'off',
};
const fx = useBackfillFixture({ requestLog: 1_000 }, MONEY);

// 2 datasets × 2 locations × 5 windows of 48 h = 20 calls = €10: twice the budget.
const BACKFILL = ['backfill', '--dataset', 'all', '--from', '2024-06-02', '--to', '2024-06-12'];

/** Runs and chunks the ledger holds. */
async function ledgerRows(): Promise<{ runs: number; chunks: number }> {
  const { rows } = await sql<{ runs: number; chunks: number }>`
    select (select count(*)::int from envdata.run) as runs,
           (select count(*)::int from envdata.chunk) as chunks`.execute(fx.app.db);
  return rows[0]!;
}

/** The first instant of the next calendar month, UTC: where a monthly budget resets. */
function nextMonthUtc(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}

describe('a monthly budget (ENVDATA_BUDGET)', () => {
  it('counts what unfinished runs still plan: a second backfill that fits alone but not beside the first is refused', async () => {
    // Pollen at both locations, 4 windows of 48 h: 8 calls = €4.00 each, within the €5.00.
    const pollen = (from: string, to: string) => [
      'backfill',
      '--dataset',
      'pollen',
      '--from',
      from,
      '--to',
      to,
    ];
    const first = await runCliInProcess(pollen('2024-05-01', '2024-05-09'), fx.cliEnv(MONEY));
    expect(first.code, first.stderr).toBe(0);
    const firstRun = Number(/run (\d+):/.exec(first.stdout)![1]);
    try {
      // No worker: the first run's 8 calls are all still planned, nothing spent.
      const before = await ledgerRows();
      const second = pollen('2024-05-11', '2024-05-19');
      const refused = await runCliInProcess(second, fx.cliEnv(MONEY));
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        "this backfill would cost €4.00, beyond the €1.00 left of this month's budget of €5.00 (ENVDATA_BUDGET), counting €0.00 spent this month and €4.00 still planned by 1 unfinished run: nothing was written",
      );
      expect(await ledgerRows()).toEqual(before);

      const dry = await runCliInProcess([...second, '--dry-run'], fx.cliEnv(MONEY));
      expect(dry.stdout).toContain(
        'budget: €5.00/month (ENVDATA_BUDGET), €0.00 spent this month, €4.00 still planned by 1 unfinished run, €1.00 left — this plan goes OVER it',
      );
      const json = JSON.parse(
        (await runCliInProcess([...second, '--dry-run', '--json'], fx.cliEnv(MONEY))).stdout,
      );
      expect(json.money.budget).toEqual({
        perMonth: '5',
        spentThisMonth: '0',
        plannedByUnfinishedRuns: '4',
        unfinishedRuns: 1,
        left: '1',
        overBudget: true,
      });
      // The same backfill again resumes its run: nothing new to pay for, not refused.
      const resumed = await runCliInProcess(pollen('2024-05-01', '2024-05-09'), fx.cliEnv(MONEY));
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toContain(`resumed run ${firstRun}:`);
      expect(resumed.stdout).not.toContain('OVER');
    } finally {
      const cancelled = await runCliInProcess(['cancel', String(firstRun)], fx.cliEnv(MONEY));
      expect(cancelled.code, cancelled.stderr).toBe(0);
    }
    // Cancelled, it plans nothing more: the second fits again.
    const dry = await runCliInProcess(
      [...pollen('2024-05-11', '2024-05-19'), '--dry-run'],
      fx.cliEnv(MONEY),
    );
    expect(dry.stdout).toContain('€0.00 spent this month, €5.00 left: the plan fits');
  });

  it('refuses a plan over the budget with exit 2 and writes nothing; the dry run shows its cost', async () => {
    const before = await ledgerRows();
    const refused = await runCliInProcess(BACKFILL, fx.cliEnv(MONEY));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "this backfill would cost €10.00, beyond the €5.00 left of this month's budget of €5.00 (ENVDATA_BUDGET): nothing was written",
    );
    expect(refused.stderr).toContain('--allow-over-budget');
    expect(await ledgerRows()).toEqual(before);

    const dry = await runCliInProcess([...BACKFILL, '--dry-run'], fx.cliEnv(MONEY));
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('cost: €10.00 (20 call(s) at €0.50 each)');
    expect(dry.stdout).toContain(
      'budget: €5.00/month (ENVDATA_BUDGET), €0.00 spent this month, €5.00 left — this plan goes OVER it',
    );
    expect(dry.stdout).toMatch(
      /expected duration: ~.+ \(today's allowance covers 10 of 20 calls; the rest after the reset at .+ of the month's budget \(ENVDATA_BUDGET\)/,
    );
    expect(dry.stdout).toContain(
      'backfill would be refused (over the budget): pass --allow-over-budget to backfill anyway',
    );
    const json = JSON.parse(
      (await runCliInProcess([...BACKFILL, '--dry-run', '--json'], fx.cliEnv(MONEY))).stdout,
    );
    expect(json.money).toEqual({
      currency: 'EUR',
      pricePerCall: '0.5',
      cost: '10',
      budget: {
        perMonth: '5',
        spentThisMonth: '0',
        plannedByUnfinishedRuns: '0',
        unfinishedRuns: 0,
        left: '5',
        overBudget: true,
      },
    });
    expect(json.quotaDays.boundBy).toBe('budget (month)');

    // The sync the same: costed by its dry run, refused over the budget.
    const syncPlan = JSON.parse(
      (await runCliInProcess(['sync', '--dry-run', '--json'], fx.cliEnv(MONEY))).stdout,
    );
    expect(syncPlan.calls).toBeGreaterThan(10);
    expect(syncPlan.money).toMatchObject({ cost: String(syncPlan.calls / 2), currency: 'EUR' });
    expect(syncPlan.money.budget.overBudget).toBe(true);
    const syncText = await runCliInProcess(['sync', '--dry-run'], fx.cliEnv(MONEY));
    expect(syncText.stdout).toContain(`(${syncPlan.calls} call(s) at €0.50 each)`);
    expect(syncText.stdout).toContain(
      'sync --now would be refused (over the budget): pass --allow-over-budget to sync anyway',
    );
    const syncNow = await runCliInProcess(['sync', '--now'], fx.cliEnv(MONEY));
    expect(syncNow.code).toBe(2);
    expect(syncNow.stderr).toContain('this sync would cost');
    expect(await ledgerRows()).toEqual(before);
  });

  it('with --allow-over-budget, stops at the budget and says so: the run waits for the month’s reset', async () => {
    const started = await runCliInProcess([...BACKFILL, '--allow-over-budget'], fx.cliEnv(MONEY));
    expect(started.code).toBe(0);
    expect(started.stdout).toContain(
      'over the budget, started with --allow-over-budget: it stops at the budget (10 calls a month) and waits with "budget (month)" until the month resets',
    );
    const runId = Number(/run (\d+):/.exec(started.stdout)![1]);
    const app = fx.newApp(MONEY);
    const worker = IngestWorker.start(app, { concurrency: 2 });
    try {
      const held = await waitForRun(app.db, runId, {
        timeoutMs: 30_000,
        until: (p) => p.waiting !== null && p.done === 10,
      });
      expect(held.status).toBe('running');
      expect(held.waiting).toEqual({
        reason: 'budget (month)',
        until: new Date(nextMonthUtc()),
        hint: null,
      });
      // Exactly what the budget pays for was asked of the service; no attempt was used waiting.
      expect(fx.simulator.stats().byStatus['200']).toBe(10);
      const chunks = await runChunks(app.db, runId);
      expect(chunks.filter((c) => c.attempts > 1)).toEqual([]);

      const [text, json] = await Promise.all([
        runCliInProcess(['status'], fx.cliEnv(MONEY)),
        runCliInProcess(['status', '--json'], fx.cliEnv(MONEY)),
      ]);
      const until = nextMonthUtc();
      expect(text.stdout).toContain(
        `  month  10 of 10 calls (the budget’s calls), €5.00 spent, budget €5.00, resets ${until.slice(0, 10)} 00:00 UTC`,
      );
      expect(text.stdout).toContain(
        `waiting: budget (month) until ${until.slice(0, 10)} 00:00 UTC`,
      );
      expect(JSON.parse(json.stdout).quota).toEqual({
        timeZone: 'UTC',
        currency: 'EUR',
        pricePerCall: '0.5',
        budgetPerMonth: '5',
        windows: [
          {
            window: 'month',
            usedCalls: 10,
            limitCalls: 10,
            limitedBy: 'budget',
            reserveCalls: 0,
            resetsAt: until,
            refusedByService: false,
            usedCost: '5',
          },
        ],
      });
      // Spent: even a small plan is now over what is left.
      const small = await runCliInProcess(
        ['backfill', '--dataset', 'pollen', '--from', '2024-05-01', '--to', '2024-05-03'],
        fx.cliEnv(MONEY),
      );
      expect(small.code).toBe(2);
      expect(small.stderr).toContain('beyond the €0.00 left');

      // The budget reached is one alert for the run, whatever the number of held jobs and the
      // checks; nothing when it resets: the run goes on by itself.
      const alerts = async () =>
        (
          await sql<{ event: string; details: { reason: string; runId: number } }>`
            select event, details from envdata.notification
            where event like '%quota-%' order by notification_id`.execute(app.db)
        ).rows;
      expect(await alerts()).toEqual([]);
      await checkAlerts(app, { now: new Date(Date.parse(until) - 1_000) });
      await checkAlerts(app, { now: new Date(Date.parse(until) - 500) });
      await checkAlerts(app, { now: new Date(Date.parse(until) + 1_000) });
      expect(await alerts()).toEqual([
        {
          event: 'run-quota-bound',
          details: expect.objectContaining({
            reason: 'budget (month)',
            runId,
            faster: 'raise ENVDATA_BUDGET to go faster',
          }),
        },
      ]);
    } finally {
      await worker.close();
    }
  }, 60_000);
});
