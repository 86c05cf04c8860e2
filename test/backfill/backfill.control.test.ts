import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runProgress } from '../../src/ledger/run-progress.js';
import { resumeRuns } from '../../src/runs/resume-runs.js';
import { pauseRunning } from '../../src/runs/control-run.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillArgs, backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { pollUntil } from '../harness/poll-until.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { ENVDATA_BIN } from '../harness/run-envdata.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { workRun } from '../harness/work-run.js';
import { waitForNoneRunning } from './run-chunks.js';
import { childEnvironment } from '../harness/child-environment.js';

// Every history answer takes 100 ms: a run of 30 chunks is long enough to stop in the middle.
const fx = useBackfillFixture({ faults: 'history:latency=100@100%' });

const month = (from: string, to: string) => backfillRange(from, to, { datasets: ['weather'] });

describe('stopping what you started', () => {
  it('pause: no chunk of the run starts while others run; resume finishes it with no call twice', async () => {
    const berlin = fx.locations.find((l) => l.name === 'Berlin')!;
    const long = await startBackfill(fx.app, {
      ...month('2024-01-02T00:00:00Z', '2024-03-02T00:00:00Z'),
      locations: [berlin],
    });
    expect(long.estimate.chunks).toBe(30);
    const worker = IngestWorker.start(fx.app, { concurrency: 2 });
    try {
      await waitForRun(fx.app.db, long.runId!, { until: (p) => p.done >= 3 });
      expect(await pauseRunning(fx.app, long.runId!)).toBe(true);
      await waitForNoneRunning(fx.app.db, long.runId!);
      const atPause = await runProgress(fx.app.db, long.runId!);
      expect(atPause!.status).toBe('paused');

      // The same worker keeps working, on another run, to the end of it...
      const other = await startBackfill(fx.app, {
        ...month('2024-04-03T00:00:00Z', '2024-04-07T00:00:00Z'),
        locations: [berlin],
      });
      expect(await waitForRun(fx.app.db, other.runId!)).toMatchObject({ status: 'done', done: 2 });
      // ...and made no call for the paused one meanwhile.
      expect(await runProgress(fx.app.db, long.runId!)).toMatchObject({
        status: 'paused',
        calls: atPause!.calls,
        done: atPause!.done,
      });

      const resumed = await resumeRuns(fx.app, long.runId!);
      expect(resumed.runs).toEqual([long.runId]);
      expect(await waitForRun(fx.app.db, long.runId!)).toMatchObject({
        status: 'done',
        done: 30,
        calls: 30,
      });
    } finally {
      await worker.close();
    }
  });

  it('cancel: chunks not fetched are dropped, in-flight ones land, done hours stay, exit messages say so', async () => {
    const brisbane = fx.locations.find((l) => l.name === 'Brisbane')!;
    fx.simulator.resetStats();
    const run = await startBackfill(fx.app, {
      ...month('2023-01-03T00:00:00Z', '2023-03-04T00:00:00Z'),
      locations: [brisbane],
    });
    const worker = IngestWorker.start(fx.app, { concurrency: 2 });
    try {
      await waitForRun(fx.app.db, run.runId!, { until: (p) => p.done >= 3 });
      const result = await runCliInProcess(['cancel', String(run.runId)], fx.cliEnv());
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/cancelled: \d+ chunk\(s\) not fetched were dropped/);
      await waitForNoneRunning(fx.app.db, run.runId!);
    } finally {
      await worker.close();
    }
    const after = (await runProgress(fx.app.db, run.runId!))!;
    expect(after.status).toBe('cancelled');
    expect(after.done).toBeLessThan(30);
    // Every call made is a chunk that landed: nothing was fetched for the dropped ones.
    expect(fx.simulator.stats().total).toBe(after.calls);
    expect(after.calls).toBe(after.done);
    // What landed stays: its rows, and its hours in the coverage.
    const { rows } = await sql<{ facts: number; covered: number }>`
      select (select count(*) from envdata.weather_hourly where location_id = ${brisbane.locationId}
          and observed_at < '2023-03-04')::int as facts,
        (select extract(epoch from sum(upper(r) - lower(r))) / 3600 from envdata.coverage c,
          unnest(c.landed) r where c.location_id = ${brisbane.locationId}
          and c.dataset = 'weather')::int as covered`.execute(fx.app.db);
    expect(rows[0]).toEqual({ facts: after.done * 48, covered: after.done * 48 });
    // Cancelling again is refused: the run has finished.
    const again = await runCliInProcess(['cancel', String(run.runId)], fx.cliEnv());
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/has already finished/);
  });
});

describe('Ctrl-C under --wait', () => {
  it('pauses the run and says how to go on; a later --wait does none of its work; resume --wait finishes it', async () => {
    const berlin = fx.locations.find((l) => l.name === 'Berlin')!;
    const child = spawn(
      process.execPath,
      [
        ENVDATA_BIN,
        ...backfillArgs(
          'pollen',
          'Berlin',
          '2022-01-02',
          '2022-03-03',
          '--wait',
          '--concurrency',
          '2',
        ),
      ],
      { env: childEnvironment(fx.cliEnv()), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const runId = await pollUntil<number, string>(
      async () => {
        const m = /^run (\d+):/m.exec(stdout);
        return m ? { done: Number(m[1]) } : { last: stdout };
      },
      { everyMs: 20, timeoutMs: 30_000, describe: (s) => `no run printed: ${s}` },
    );
    await waitForRun(fx.app.db, runId, { until: (p) => p.done >= 2 });
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stdout).toMatch(
      new RegExp(`interrupted: run ${runId} \\(backfill\\) is paused at \\d+/30 chunks`),
    );
    expect(stdout).toContain(`envdata resume ${runId} --wait`);
    expect(stdout).toContain(`envdata cancel ${runId}`);
    const paused = (await runProgress(fx.app.db, runId))!;
    expect(paused.status).toBe('paused');

    // Another backfill's local worker works on its own run only: the paused one stays as it was.
    const other = await runCliInProcess(
      backfillArgs('pollen', String(berlin.locationId), '2022-05-02', '2022-05-06', '--wait'),
      fx.cliEnv(),
    );
    expect(other.code).toBe(0);
    expect(await runProgress(fx.app.db, runId)).toMatchObject({
      status: 'paused',
      done: paused.done,
      calls: paused.calls,
    });

    const resumed = await runCliInProcess(['resume', String(runId), '--wait'], fx.cliEnv());
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`run ${runId} \\(backfill\\) done: 30/30 chunks`));
    expect((await runProgress(fx.app.db, runId))!.calls).toBe(30);
  });
});

describe('retry --wait', () => {
  it('re-queues the failed chunks and works them off here, exit 0', async () => {
    const brisbane = fx.locations.find((l) => l.name === 'Brisbane')!;
    const app = fx.newApp({ ENVDATA_MAX_ATTEMPTS: '2', ENVDATA_RETRY_BASE_MS: '20' });
    fx.simulator.addFaultScripts('pollen-history:error=503x2');
    const run = await startBackfill(app, {
      ...backfillRange('2021-01-03', '2021-01-05', { datasets: ['pollen'] }),
      locations: [brisbane],
    });
    expect(await workRun(app, run.runId, { concurrency: 1 })).toMatchObject({
      status: 'failed',
      failed: 1,
    });
    const retried = await runCliInProcess(['retry', String(run.runId), '--wait'], fx.cliEnv());
    expect(retried.code).toBe(0);
    expect(retried.stdout).toMatch(/1 failed chunk\(s\) of run \d+ re-queued\n/);
    expect(retried.stdout).toMatch(/done: 1\/1 chunks done, 0 failed/);
  });
});
