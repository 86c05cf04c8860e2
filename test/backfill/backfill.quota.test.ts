import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { planRun } from '../../src/planner/plan-run.js';
import { QUEUE_NAMES } from '../../src/queue/queue-names.js';
import { startSync } from '../../src/sync/start-sync.js';
import type { Database } from '../../src/warehouse/schema.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { runChunks } from './run-chunks.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';

/** Real seconds of a quota day, on both sides (ENVDATA_QUOTA_DAY_SECONDS, the simulator's daySeconds). */
const DAY_S = 4;
const DAY_MS = DAY_S * 1_000;
const MIDNIGHT = Date.parse('2024-06-30T00:00:00Z');

const fx = useBackfillFixture(
  { requestLog: 10_000 },
  { ENVDATA_SYNC_LOOKBACK: '48h', ENVDATA_SYNC_HORIZON: '48h' },
);
// The same backfill with no quota at all, in a warehouse of its own.
const reference = useBackfillFixture({}, {});

/**
 * Sets the simulator's short quota days to begin when envdata's do: at whole multiples of
 * `DAY_S` real seconds since the epoch (`quotaInstant`). The simulator's quota clock starts at
 * its frozen "now" when set, so "now" is set to midnight plus what the timer was late, on the
 * quota clock. Waiting here is for a clock instant, not for work.
 */
async function alignSimulatorDays(quota: { perDay: number }): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, DAY_MS - (Date.now() % DAY_MS)));
  const lateMs = Date.now() % DAY_MS;
  fx.simulator.setOptions({
    now: new Date(MIDNIGHT + lateMs * (86_400 / DAY_S)).toISOString(),
    daySeconds: DAY_S,
    quota: { perDay: quota.perDay, timeZone: 'UTC' },
  });
  fx.simulator.resetStats();
}

/** Calls the simulator answered, per envdata quota day (whole `DAY_S` since the epoch). */
function callsPerDay(since: number): number[] {
  const perDay = new Map<number, number>();
  for (const r of fx.simulator.requests()) {
    if (r.at < since) continue;
    const day = Math.floor(r.at / DAY_MS);
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
  }
  return [...perDay.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
}

/** Fact rows of `[from, to)`, digested, comparable across warehouses. */
async function rangeDigest(db: Kysely<Database>, from: Date, to: Date): Promise<unknown> {
  const { rows } = await sql`
    select
      (select md5(string_agg(t::text, '|' order by location_id, observed_at))
        from envdata.weather_hourly t where observed_at >= ${from} and observed_at < ${to}) as weather,
      (select md5(string_agg(t::text, '|' order by location_id, observed_at, pollen_type))
        from envdata.pollen_hourly t where observed_at >= ${from} and observed_at < ${to}) as pollen,
      (select count(*)::int from envdata.pollen_species_hourly t
        where observed_at >= ${from} and observed_at < ${to}) as species`.execute(db);
  return rows[0];
}

/** Starts from an empty queue and no unfinished run an earlier test left. */
async function clearQueue(app: App): Promise<void> {
  await sql`update envdata.run set status = 'cancelled' where status in ('planning', 'running')`.execute(
    app.db,
  );
  const queue = app.queues.queue(QUEUE_NAMES.ingest);
  await queue.obliterate({ force: true });
  await queue.removeRateLimitKey();
}

// 2 datasets × 2 locations × 10 windows = 40 chunks; 12 a day beside a sync's reserve of 18 (a sync takes 14).
const RANGE = backfillRange('2024-06-02', '2024-06-22');

describe('a daily quota with a reserve for the sync', () => {
  it('holds the backfill at the line each day, lets each day’s sync finish, resumes after each reset', async () => {
    const env = {
      ENVDATA_QUOTA: '30/day',
      ENVDATA_SYNC_RESERVE: '18',
      ENVDATA_QUOTA_DAY_SECONDS: String(DAY_S),
    };
    await clearQueue(fx.app);
    // Two worker processes (apps), as on two hosts: one quota between them.
    const apps = [fx.newApp(env), fx.newApp(env)];
    await alignSimulatorDays({ perDay: 30 });
    const started = Date.now();
    const { runId } = await planRun(
      apps[0]!.db,
      { kind: 'backfill', ...RANGE, locations: fx.locations },
      [],
    );
    const workers = apps.map((app) => IngestWorker.start(app, { concurrency: 2 }));
    try {
      const untils: number[] = [];
      for (let day = 0; day < 3; day += 1) {
        // The backfill reaches the line: its run says it waits for the day's reset.
        const held = await waitForRun(apps[0]!.db, runId!, {
          timeoutMs: 3 * DAY_MS,
          until: (p) => p.waiting !== null && p.waiting.until.getTime() > (untils.at(-1) ?? 0),
        });
        expect(held.status).toBe('running');
        expect(held.waiting!.reason).toBe('quota (day)');
        const until = held.waiting!.until.getTime();
        expect(until % DAY_MS).toBe(0);
        untils.push(until);
        // The night's sync, started mid-day, finishes within it on the reserve.
        const sync = await startSync(apps[day % 2]!, new Date(MIDNIGHT));
        const synced = await waitForRun(apps[0]!.db, sync.runId, { timeoutMs: DAY_MS });
        expect(synced).toMatchObject({ status: 'done', failed: 0 });
        expect(Date.now()).toBeLessThan(until);
      }
      const done = await waitForRun(apps[0]!.db, runId!, { timeoutMs: 3 * DAY_MS });
      expect(done).toMatchObject({ status: 'done', done: 40, failed: 0, waiting: null });
      // Three resets passed: the backfill took four quota days.
      expect(Date.now() - started).toBeGreaterThan(3 * DAY_MS - DAY_MS);
      // No chunk used an attempt for waiting.
      expect(new Set((await runChunks(apps[0]!.db, runId!)).map((c) => c.attempts))).toEqual(
        new Set([1]),
      );
    } finally {
      for (const w of workers) await w.close();
    }
    const stats = fx.simulator.stats();
    expect(stats.byStatus['429'] ?? 0).toBe(0);
    expect(stats.quotaExhausted).toEqual({});
    for (const n of callsPerDay(started)) expect(n).toBeLessThanOrEqual(30);

    // The warehouse holds what a run without any quota lands.
    await reference.planBackfill(RANGE).then(async ({ runId }) => {
      const worker = IngestWorker.start(reference.app, { concurrency: 4 });
      try {
        expect(await waitForRun(reference.app.db, runId!)).toMatchObject({ status: 'done' });
      } finally {
        await worker.close();
      }
    });
    expect(await rangeDigest(fx.app.db, RANGE.from, RANGE.to)).toEqual(
      await rangeDigest(reference.app.db, RANGE.from, RANGE.to),
    );
  }, 60_000);
});

describe('the service’s own "quota exceeded"', () => {
  it('pauses every worker until the reset: one refused call per day, then the run finishes', async () => {
    // The simulator's plan allows 5 calls a day; envdata believes 1000.
    const env = { ENVDATA_QUOTA: '1000/day', ENVDATA_QUOTA_DAY_SECONDS: String(DAY_S) };
    await clearQueue(fx.app);
    const app = fx.newApp(env);
    await alignSimulatorDays({ perDay: 5 });
    // 2 datasets × 2 locations × 3 windows = 12 chunks: 5 a day.
    const range = backfillRange('2024-05-01', '2024-05-07');
    const { runId } = await planRun(
      app.db,
      { kind: 'backfill', ...range, locations: fx.locations },
      [],
    );
    const worker = IngestWorker.start(app, { concurrency: 1 });
    try {
      const held = await waitForRun(app.db, runId!, {
        timeoutMs: 2 * DAY_MS,
        until: (p) => p.waiting !== null,
      });
      expect(held.waiting!.reason).toBe('quota (day)');
      // What an operator sees meanwhile: the state, its reason and its end, text and --json.
      const until = held.waiting!.until.toISOString();
      const shown = `waiting: quota (day) until ${until.slice(0, 10)} ${until.slice(11, 19)} UTC`;
      const [text, json, list] = await Promise.all([
        runCliInProcess(['status', String(runId)], fx.cliEnv(env)),
        runCliInProcess(['status', String(runId), '--json'], fx.cliEnv(env)),
        runCliInProcess(['status'], fx.cliEnv(env)),
      ]);
      expect(text.stdout).toContain(`  ${shown} (no attempt used; resumes by itself)`);
      const runLine = list.stdout
        .split('\n')
        .find((l) => l.trim().startsWith(`${runId}  backfill`));
      expect(runLine).toContain(`running`);
      expect(runLine).toContain(`, ${shown}`);
      expect(JSON.parse(json.stdout).run.waiting).toEqual({ reason: 'quota (day)', until });
      const done = await waitForRun(app.db, runId!, { timeoutMs: 4 * DAY_MS });
      expect(done).toMatchObject({ status: 'done', done: 12, failed: 0 });
      expect(new Set((await runChunks(app.db, runId!)).map((c) => c.attempts))).toEqual(
        new Set([1]),
      );
    } finally {
      await worker.close();
    }
    // Days 1 and 2 were spent: one probe each found it out, none more.
    const refused = Object.values(fx.simulator.stats().quotaExhausted).reduce((a, b) => a + b, 0);
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(refused).toBeLessThanOrEqual(2);
    expect(fx.simulator.stats().byStatus['200']).toBe(12);
    const progress = await runProgress(app.db, runId!);
    expect(progress?.waiting).toBeNull();
  }, 60_000);
});
