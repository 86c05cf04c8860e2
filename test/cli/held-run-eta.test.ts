import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchRun } from '../../src/cli/watch-run.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { serveConsole, type ServedConsole } from '../console/serve-console.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { captureLogger } from '../harness/capture-logger.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';

/** Four calls a day, all of them the backfill's: a run of 8 chunks is held after 4 until midnight. */
const QUOTA = { ENVDATA_QUOTA: '4/day', ENVDATA_SYNC_RESERVE: '0', ENVDATA_RATE_LIMIT: '10/s' };
const fx = useBackfillFixture({}, QUOTA);
let served: ServedConsole;

beforeAll(async () => {
  served = await serveConsole(fx);
});
afterAll(() => served.stop());

/** `~2 h 41 min`, `~40 s` back in ms (the format of `formatDuration`), to compare with a wait. */
function parseEta(text: string): number {
  const m = /ETA ~?(?:(\d+) d )?(?:(\d+) h )?(?:(\d+) min)?(?:(\d+) s)?/.exec(text);
  if (!m) throw new Error(`no ETA in ${JSON.stringify(text)}`);
  const [d, h, min, s] = m.slice(1).map((x) => Number(x ?? 0));
  return (((d! * 24 + h!) * 60 + min!) * 60 + s!) * 1000;
}

describe('the ETA of a run held by the quota until its reset (issue 38, item 6)', () => {
  it('is at least the reset plus the work left in status, the --wait line and the console; a dry run says so', async () => {
    const start = await startBackfill(fx.app, {
      ...backfillRange('2024-06-02', '2024-06-06'),
      locations: fx.locations,
    });
    const runId = start.runId!;
    const worker = IngestWorker.start(fx.app, { concurrency: 2 });
    let held;
    try {
      held = await waitForRun(fx.app.db, runId, { until: (p) => p.waiting?.until != null });
    } finally {
      await worker.close();
    }
    expect(held.waiting!.reason).toBe('quota (day)');
    const waitMs = held.waiting!.until!.getTime() - Date.now();
    // A minute of slack for the minutes the durations are rounded to.
    const atLeast = waitMs - 60_000;

    const [list, text, rows, dry] = await Promise.all([
      runCliInProcess(['status'], fx.cliEnv(QUOTA)),
      runCliInProcess(['status', String(runId)], fx.cliEnv(QUOTA)),
      fetch(`${served.url}/api/runs`).then((r) => r.json() as Promise<{ runs: unknown[] }>),
      runCliInProcess(
        [
          'backfill',
          '--from',
          '2024-05-01',
          '--to',
          '2024-05-03',
          '--dataset',
          'weather',
          '--dry-run',
        ],
        fx.cliEnv(QUOTA),
      ),
    ]);
    const runLine = list.stdout.split('\n').find((l) => l.trim().startsWith(`${runId}  backfill`));
    expect(runLine).toContain('(the reset, then the 4 chunk(s) left)');
    expect(parseEta(runLine!)).toBeGreaterThanOrEqual(atLeast);
    const waitingLine = text.stdout.split('\n').find((l) => l.includes('waiting: quota (day)'));
    expect(parseEta(waitingLine!)).toBeGreaterThanOrEqual(atLeast);

    const row = rows.runs.find((r) => (r as { runId: number }).runId === runId) as {
      etaSeconds: number | null;
    };
    // The console counted its whole seconds to the reset before this: at least what is left now
    // (a second of slack for the rounding), however long the calls above took.
    const waitLeftMs = held.waiting!.until!.getTime() - Date.now();
    expect(row.etaSeconds! * 1000).toBeGreaterThanOrEqual(waitLeftMs - 1_000);

    // The --wait line: the progress bar's ETA knows the wait.
    const printed: string[] = [];
    let stopWatching!: () => void;
    const stop = new Promise<void>((resolve) => (stopWatching = resolve));
    await watchRun(fx.app.db, runId, {
      logger: captureLogger().logger,
      print: (line) => {
        printed.push(line);
        stopWatching();
      },
      logEveryMs: 0,
      pollMs: 20,
      stop,
      config: fx.app.config,
    });
    expect(printed[0]).toContain('waiting: quota (day)');
    expect(parseEta(printed[0]!)).toBeGreaterThanOrEqual(atLeast);

    // A dry run with today's allowance spent: one line, the wait included.
    expect(dry.code).toBe(0);
    const expected = dry.stdout.split('\n').find((l) => l.includes('expected duration'));
    expect(expected).toMatch(
      /^ {2}expected duration: ~.+ \(today's allowance covers 0 of \d+ calls; the rest after the reset at .+ UTC of the daily quota \(ENVDATA_QUOTA\).*; at 10\/s\)$/,
    );
    expect(dry.stdout).not.toMatch(/day\(s\) of the quota/);
    expect(dry.stdout).not.toMatch(/rows, ~?\d+ s at 10\/s/);
  }, 60_000);
});
