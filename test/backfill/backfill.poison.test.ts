import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { resumeRuns } from '../../src/runs/resume-runs.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';

const fx = useBackfillFixture();

function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  return fx.cliEnv(extra);
}

async function ledgerRows(): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select ((select count(*) from envdata.run) + (select count(*) from envdata.run_gap)
      + (select count(*) from envdata.chunk))::int as n`.execute(fx.app.db);
  return rows[0]!.n;
}

describe('no run can poison the ledger', () => {
  it('refuses a bound inside an hour with exit 2, writes nothing, and the next backfill runs', async () => {
    const before = await ledgerRows();
    const bad = await runCliInProcess(
      [
        'backfill',
        '--dataset',
        'weather',
        '--from',
        '2024-01-01 00:30:00',
        '--to',
        '2024-01-01 01:15:00',
        '--wait',
      ],
      cliEnv(),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--from "2024-01-01 00:30:00" is not a whole UTC hour/);
    expect(bad.stderr).toMatch(/"2024-01-01 00:00:00" or "2024-01-01 01:00:00"/);
    expect(await ledgerRows()).toBe(before);

    const good = await runCliInProcess(
      ['backfill', '--dataset', 'weather', '--from', '2024-01-01', '--to', '2024-01-02', '--wait'],
      cliEnv(),
    );
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/done: \d+\/\d+ chunks done, 0 failed, 48 rows/);
  });

  it('fails a run whose chunks cannot be written, and another run still finishes', async () => {
    // A deliberately broken run: Postgres refuses every chunk of Brisbane.
    const brisbane = fx.locations.find((l) => l.name === 'Brisbane')!;
    const berlin = fx.locations.find((l) => l.name === 'Berlin')!;
    await sql`
      create function envdata.test_refuse_chunk() returns trigger language plpgsql as $$
      begin raise exception 'test: chunks of location % are refused', new.location_id; end $$;
      create trigger test_refuse_chunk before insert on envdata.chunk for each row
        when (new.location_id = ${sql.lit(brisbane.locationId)})
        execute function envdata.test_refuse_chunk();
    `.execute(fx.app.db);
    try {
      const request = {
        datasets: ['pollen'] as const,
        from: new Date('2024-02-03T00:00:00Z'),
        to: new Date('2024-02-07T00:00:00Z'),
        windowHours: 48,
      };
      const broken = await startBackfill(fx.app, { ...request, locations: [brisbane] });
      const healthy = await startBackfill(fx.app, { ...request, locations: [berlin] });
      const worker = IngestWorker.start(fx.app, { concurrency: 4 });
      try {
        expect(await waitForRun(fx.app.db, healthy.runId!)).toMatchObject({
          status: 'done',
          done: 2,
        });
        const failed = await waitForRun(fx.app.db, broken.runId!);
        expect(failed.status).toBe('failed');
        expect(failed.errorCode).toBe('PLAN_INVALID');
        expect(failed.errorMessage).toMatch(/chunks of location \d+ are refused/);
      } finally {
        await worker.close();
      }
    } finally {
      await sql`drop trigger test_refuse_chunk on envdata.chunk;
        drop function envdata.test_refuse_chunk()`.execute(fx.app.db);
    }
  });

  it('stops a run whose answers are mostly 404 (a wrong ENVDATA_BASE_URL) and records nothing as covered', async () => {
    const berlin = fx.locations.find((l) => l.name === 'Berlin')!;
    const wrong = fx.newApp({ ENVDATA_BASE_URL: `${fx.simulator.url}/v9` });
    const request = {
      datasets: ['weather'] as const,
      locations: [berlin],
      from: new Date('2023-01-03T00:00:00Z'),
      to: new Date('2023-04-03T00:00:00Z'),
      windowHours: 48,
    };
    const start = await startBackfill(wrong, request);
    expect(start.estimate.chunks).toBe(45);
    const worker = IngestWorker.start(wrong, { concurrency: 2 });
    let progress;
    try {
      progress = await waitForRun(wrong.db, start.runId!);
    } finally {
      await worker.close();
    }
    expect(progress.status).toBe('stopped');
    expect(progress.errorCode).toBe('WRONG_ADDRESS');
    expect(progress.errorMessage).toMatch(/check ENVDATA_BASE_URL/);
    const { rows } = await sql<{ landed: string; holes: number }>`
      select coalesce((select landed::text from envdata.coverage
          where location_id = ${berlin.locationId} and dataset = 'weather'), '{}') as landed,
        (select count(*)::int from envdata.coverage_hole
          where location_id = ${berlin.locationId} and dataset = 'weather'
            and hours && tstzrange('2023-01-03', '2023-04-03')) as holes`.execute(fx.app.db);
    expect(rows[0]!.landed).not.toContain('2023-0');
    expect(rows[0]!.holes).toBe(0);

    // With the right address the run resumes and lands the whole quarter.
    const resumed = await resumeRuns(fx.app, start.runId!);
    expect(resumed.runs).toEqual([start.runId]);
    const right = IngestWorker.start(fx.app, { concurrency: 4 });
    try {
      expect(await waitForRun(fx.app.db, start.runId!)).toMatchObject({
        status: 'done',
        notCoveredHours: 0,
        rows: 90 * 24,
      });
    } finally {
      await right.close();
    }
  });
});
