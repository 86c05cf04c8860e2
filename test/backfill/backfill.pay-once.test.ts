import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createFeeder } from '../../src/dispatch/create-feeder.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { pauseRunning } from '../../src/runs/control-run.js';
import { resumeRuns } from '../../src/runs/resume-runs.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillArgs, backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { pollUntil } from '../harness/poll-until.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { waitForNoneRunning } from './run-chunks.js';

// Every history answer takes 100 ms: a run of 30 chunks is long enough to pause in the middle.
const fx = useBackfillFixture({ faults: 'history:latency=100@100%', requestLog: 1_000 });

const weather = (from: string, to: string) => backfillRange(from, to, { datasets: ['weather'] });

async function chunksOf(runId: number, where: 'queued' | 'settled'): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from envdata.chunk where run_id = ${runId}
      and ${where === 'queued' ? sql`status = 'queued'` : sql`outcome = 'settled'`}`.execute(
    fx.app.db,
  );
  return rows[0]!.n;
}

async function weatherFacts(locationId: number, from: string, to: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from envdata.weather_hourly where location_id = ${locationId}
      and observed_at >= ${new Date(from)} and observed_at < ${new Date(to)}`.execute(fx.app.db);
  return rows[0]!.n;
}

/** The history windows asked for since the last reset, as `from…to` of each request. */
function windowsAsked(): string[] {
  return fx.simulator
    .requests()
    .filter((r) => r.endpoint.includes('history'))
    .map((r) => {
      const q = new URLSearchParams(r.query);
      return `${q.get('from')}…${q.get('to')}`;
    });
}

describe('never pay twice', () => {
  it('a paused run resumed after another run landed its hours makes zero calls for them', async () => {
    const berlin = fx.locations.find((l) => l.name === 'Berlin')!;
    const range = weather('2024-01-02T00:00:00Z', '2024-03-02T00:00:00Z');
    const paused = (await startBackfill(fx.app, { ...range, locations: [berlin] })).runId!;
    let worker = IngestWorker.start(fx.app, { concurrency: 2 });
    try {
      await waitForRun(fx.app.db, paused, { until: (p) => p.done >= 3 });
      expect(await pauseRunning(fx.app, paused)).toBe(true);
      await waitForNoneRunning(fx.app.db, paused);
      // A claim the worker sent before the pause committed may still land a chunk after the
      // ledger showed none running: closing the worker waits for every job it holds.
      await worker.close();
      const atPause = (await runProgress(fx.app.db, paused))!;
      // Chunks planned and queued before the pause: what resuming would have fetched again.
      expect(await chunksOf(paused, 'queued')).toBeGreaterThan(0);

      // A new backfill over the same range says the paused run holds its hours, and plans none.
      const left = 1_440 - atPause.done * 48;
      const text = await runCliInProcess(
        backfillArgs('weather', 'Berlin', '2024-01-02', '2024-03-02', '--dry-run'),
        fx.cliEnv(),
      );
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('would plan 0 chunk(s)');
      expect(text.stdout).toContain(
        `  ${left / 48} chunk(s) of Berlin/weather are left to run ${paused} (paused) (${left} hour(s))\n` +
          `  ${left} hour(s) are already planned by run ${paused} (paused): resume it with \`envdata resume ${paused}\``,
      );
      const json = await runCliInProcess(
        backfillArgs('weather', 'Berlin', '2024-01-02', '2024-03-02', '--dry-run', '--json'),
        fx.cliEnv(),
      );
      expect(JSON.parse(json.stdout)).toMatchObject({
        plan: { chunks: 0 },
        plannedByOtherRuns: [
          {
            runId: paused,
            status: 'paused',
            hours: left,
            byLocation: [
              {
                locationId: berlin.locationId,
                name: 'Berlin',
                dataset: 'weather',
                hours: left,
                chunks: left / 48,
              },
            ],
          },
        ],
      });

      // Another run lands the same hours meanwhile (planned beside the paused one, as a run
      // planned before it paused, or by hand, would be).
      worker = IngestWorker.start(fx.app, { concurrency: 2 });
      const other = (await fx.planBackfill({ ...range, locations: [berlin] })).runId!;
      await createFeeder(fx.app).topUp();
      const landed = await waitForRun(fx.app.db, other);
      expect(landed).toMatchObject({ status: 'done', calls: 30 - atPause.done });

      fx.simulator.resetStats();
      expect(await resumeRuns(fx.app, paused)).toMatchObject({ runs: [paused] });
      const resumed = await waitForRun(fx.app.db, paused);
      // Zero calls: every chunk still queued was settled at claim time, without a call.
      expect(fx.simulator.stats().total).toBe(0);
      expect(resumed).toMatchObject({ status: 'done', calls: atPause.calls, failed: 0 });
      expect(await chunksOf(paused, 'settled')).toBeGreaterThan(0);
      expect(await chunksOf(paused, 'queued')).toBe(0);
      // The runs' row totals add up to what the warehouse holds.
      expect(resumed.rows + landed.rows).toBe(
        await weatherFacts(berlin.locationId, '2024-01-02', '2024-03-02'),
      );
    } finally {
      await worker.close();
    }
  });

  it('two overlapping backfills started at once fetch every window once', async () => {
    const brisbane = fx.locations.find((l) => l.name === 'Brisbane')!;
    fx.simulator.resetStats();
    // Both start planning at the same moment: until both wait on a lock, a transaction of the
    // test holds Brisbane's row, which writing a run's gaps needs (their foreign key).
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: Promise<void>;
    await new Promise<void>((held) => {
      holding = fx
        .newApp()
        .db.transaction()
        .execute(async (trx) => {
          await sql`select 1 from envdata.location where location_id = ${brisbane.locationId}
          for update`.execute(trx);
          held();
          await released;
        });
    });
    // 15 windows each, the last 7 of the first are the first 7 of the second: 23 in all.
    const starting = Promise.all([
      startBackfill(fx.app, {
        ...weather('2023-01-03T00:00:00Z', '2023-02-02T00:00:00Z'),
        locations: [brisbane],
      }),
      startBackfill(fx.newApp(), {
        ...weather('2023-01-19T00:00:00Z', '2023-02-18T00:00:00Z'),
        locations: [brisbane],
      }),
    ]);
    await pollUntil<true, number>(
      async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(fx.app.db);
        return rows[0]!.n >= 2 ? { done: true } : { last: rows[0]!.n };
      },
      { everyMs: 20, timeoutMs: 30_000, describe: (n) => `${n} of 2 plans waiting` },
    );
    release();
    await holding;
    const [first, second] = await starting;
    // Planning is serialised: whichever planned second left the shared 14 days to the other.
    const [early, late] = first.overlaps.length === 0 ? [first, second] : [second, first];
    expect(early.overlaps).toEqual([]);
    expect(late.overlaps).toEqual([
      {
        runId: early.runId,
        status: 'running',
        hours: 14 * 24,
        pairs: [{ locationId: brisbane.locationId, dataset: 'weather', hours: 14 * 24, chunks: 7 }],
      },
    ]);
    expect(late.notes).toContain(
      `7 chunk(s) of Brisbane/weather are left to run ${early.runId} (running) (336 hour(s))`,
    );
    expect(late.notes).toContain(
      `336 hour(s) are already planned by run ${early.runId} (running): it fetches them, follow it with \`envdata status ${early.runId}\``,
    );
    expect(early.estimate.chunks + late.estimate.chunks).toBe(23);

    const worker = IngestWorker.start(fx.app, { concurrency: 4 });
    try {
      const runs = [
        await waitForRun(fx.app.db, early.runId!),
        await waitForRun(fx.app.db, late.runId!),
      ];
      expect(runs.map((r) => r.status)).toEqual(['done', 'done']);
      const asked = windowsAsked();
      expect(asked).toHaveLength(23);
      expect(new Set(asked).size).toBe(23);
      expect(runs[0]!.calls + runs[1]!.calls).toBe(23);
      expect(runs[0]!.rows + runs[1]!.rows).toBe(
        await weatherFacts(brisbane.locationId, '2023-01-03', '2023-02-18'),
      );
    } finally {
      await worker.close();
    }
  });
});
