import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../harness/launch-chromium.js';
import { needsTools } from '../harness/system-tools.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { serveConsole, type ServedConsole } from './serve-console.js';

const fx = useBackfillFixture({}, { ENVDATA_MAX_ATTEMPTS: '1' });
let served: ServedConsole;
let cancelledRunId: number;

beforeAll(async () => {
  served = await serveConsole(fx);
});
afterAll(() => served.stop());

interface RunRowJson {
  runId: number;
  status: string;
  total: number;
  chunks: Record<string, number>;
}

/** The run as the console's Runs page and run page receive it. */
async function consoleRun(runId: number): Promise<{ row: RunRowJson; page: RunRowJson }> {
  const [list, page] = await Promise.all([
    fetch(`${served.url}/api/runs`).then((r) => r.json() as Promise<{ runs: RunRowJson[] }>),
    fetch(`${served.url}/api/runs/${runId}`).then((r) => r.json() as Promise<{ run: RunRowJson }>),
  ]);
  return { row: list.runs.find((r) => r.runId === runId)!, page: page.run };
}

/** `envdata status`'s line of `runId`. */
async function statusLine(runId: number): Promise<string> {
  const list = await runCliInProcess(['status'], fx.cliEnv());
  return list.stdout.split('\n').find((l) => l.trim().startsWith(`${runId}  backfill`)) ?? '';
}

describe('how cancelled and failed runs read (issue 38, item 10)', () => {
  it('draws a cancelled run’s unfetched chunks as dropped, with their count, never as queued', async () => {
    // No worker: every chunk of the run is still to be fetched when it is cancelled.
    const start = await startBackfill(fx.app, {
      ...backfillRange('2024-06-02', '2024-06-06'),
      locations: fx.locations,
    });
    const runId = start.runId!;
    const cancelled = await runCliInProcess(['cancel', String(runId)], fx.cliEnv());
    expect(cancelled.code, cancelled.stderr).toBe(0);

    const { row, page } = await consoleRun(runId);
    for (const run of [row, page]) {
      expect(run).toMatchObject({
        status: 'cancelled',
        total: 8,
        chunks: { done: 0, running: 0, queued: 0, failed: 0, dropped: 8 },
      });
    }
    cancelledRunId = runId;
  });

  it(
    'draws it so in a browser: a dropped bar and its count, nothing grey "queued"',
    needsTools('chromium'),
    async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(`${served.url}/#/runs/${cancelledRunId}`);
        const dropped = page.locator('#run-summary tr[data-dropped]');
        await dropped.waitFor({ timeout: 30_000 });
        expect(await dropped.getAttribute('data-dropped')).toBe('8');
        expect(await dropped.textContent()).toContain('8 chunk(s) dropped, never fetched');
        expect(await page.locator('.bar .dropped').count()).toBe(1);
        expect(await page.locator('.bar .queued').count()).toBe(0);
      } finally {
        await browser.close();
      }
    },
  );

  it('puts a run whose chunks all failed at 0 %, not 100 %', async () => {
    fx.simulator.addFaultScripts('weather:error=503x100');
    const start = await startBackfill(fx.app, {
      ...backfillRange('2024-06-02', '2024-06-06', { datasets: ['weather'] }),
      locations: fx.locations,
    });
    const runId = start.runId!;
    const worker = IngestWorker.start(fx.app, { concurrency: 2 });
    try {
      expect(await waitForRun(fx.app.db, runId)).toMatchObject({
        status: 'failed',
        done: 0,
        failed: 4,
      });
    } finally {
      await worker.close();
    }
    expect(await statusLine(runId)).toMatch(/ failed +0% {2}0\/4 chunks/);
    const { row } = await consoleRun(runId);
    expect(row).toMatchObject({ total: 4, chunks: { done: 0, failed: 4, dropped: 0 } });
  });
});
