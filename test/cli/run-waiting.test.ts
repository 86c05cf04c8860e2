import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markRunWaiting } from '../../src/ledger/mark-run-waiting.js';
import { pauseRun } from '../../src/ledger/pause-run.js';
import type { RunWaiting } from '../../src/ledger/run-progress.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { queueWaiting } from '../../src/status/run-waiting.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { startEnvdata } from '../harness/start-envdata.js';
import { serveConsole, type ServedConsole } from '../console/serve-console.js';

const fx = useBackfillFixture();
let served: ServedConsole;

beforeAll(async () => {
  served = await serveConsole(fx);
});
afterAll(() => served.stop());

/** What `status RUN`, `status RUN --json`, `status` and the console say holds `runId`. */
async function shown(runId: number) {
  const [text, json, list, page, row] = await Promise.all([
    runCliInProcess(['status', String(runId)], fx.cliEnv()),
    runCliInProcess(['status', String(runId), '--json'], fx.cliEnv()),
    runCliInProcess(['status'], fx.cliEnv()),
    fetch(`${served.url}/api/runs/${runId}`).then((r) => r.json()),
    fetch(`${served.url}/api/runs`).then((r) => r.json()),
  ]);
  const runLine = list.stdout.split('\n').find((l) => l.trim().startsWith(`${runId}  backfill`));
  const consoleRow = (row as { runs: { runId: number; waiting: unknown }[] }).runs.find(
    (r) => r.runId === runId,
  );
  return {
    text: text.stdout,
    runLine: runLine ?? '',
    json: (JSON.parse(json.stdout) as { run: { waiting: unknown } }).run.waiting,
    consolePage: (page as { run: { waiting: unknown }; progress: { waiting: unknown } }).run
      .waiting,
    consoleProgress: (page as { progress: { waiting: unknown } }).progress.waiting,
    consoleRow: consoleRow?.waiting,
  };
}

const iso = (d: Date) => d.toISOString();
const said = (d: Date) => `${iso(d).slice(0, 10)} ${iso(d).slice(11, 16)} UTC`;

describe('why a run does not move, in status, --json and the console', () => {
  it('says no worker, throttled, quota and paused, the first of them when several hold', async () => {
    const { runId } = await startBackfill(fx.app, {
      ...backfillRange('2024-06-02', '2024-06-06', { datasets: ['weather'] }),
      locations: fx.locations,
    });
    const id = runId!;
    const queue = fx.app.queues.queue(QUEUE_NAMES.ingest);
    try {
      // Nothing holds it but the lack of a worker.
      let s = await shown(id);
      const noWorker = {
        reason: 'no worker connected',
        until: null,
        hint: 'start `envdata worker`',
      };
      expect(s.text).toContain('  waiting: no worker connected — start `envdata worker`\n');
      expect(s.runLine).toContain(', waiting: no worker connected — start `envdata worker`');
      expect(s.json).toEqual(noWorker);
      expect(s.consoleRow).toEqual(noWorker);
      expect(s.consolePage).toEqual(noWorker);
      expect(s.consoleProgress).toEqual(noWorker);

      // The pause of every worker (a 429): throttled until it ends, above no worker.
      await queue.rateLimit(600_000);
      s = await shown(id);
      const throttled = s.json as { reason: string; until: string };
      expect(throttled.reason).toBe('throttled (429)');
      expect(Date.parse(throttled.until)).toBeGreaterThan(Date.now() + 590_000);
      expect(s.text).toContain(
        `  waiting: throttled (429) until ${said(new Date(throttled.until)).slice(0, 10)}`,
      );
      expect(s.text).toContain('(no attempt used; resumes by itself)');
      expect(s.consoleRow).toMatchObject({ reason: 'throttled (429)', hint: null });

      // The day's quota, recorded by a worker: above throttled, in the console too.
      const reset = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 3_600_000);
      await markRunWaiting(fx.app.db, id, 'quota (day)', reset);
      s = await shown(id);
      const quota = { reason: 'quota (day)', until: iso(reset), hint: null };
      expect(s.json).toEqual(quota);
      expect(s.text).toContain(
        `  waiting: quota (day) until ${said(reset)} (no attempt used; resumes by itself)`,
      );
      expect(s.runLine).toContain(`, waiting: quota (day) until ${said(reset)}`);
      expect(s.consoleRow).toEqual(quota);
      expect(s.consolePage).toEqual(quota);

      // Paused: above everything, with what resumes it.
      expect(await pauseRun(fx.app.db, id)).toBe(true);
      s = await shown(id);
      const paused = { reason: 'paused', until: null, hint: `envdata resume ${id}` };
      expect(s.json).toEqual(paused);
      expect(s.text).toContain(`  waiting: paused — envdata resume ${id}\n`);
      expect(s.text).not.toContain('resumes by itself');
      expect(s.runLine).toContain(`, waiting: paused — envdata resume ${id}`);
      expect(s.consoleRow).toEqual(paused);
    } finally {
      await queue.removeRateLimitKey();
      await runCliInProcess(['cancel', String(id)], fx.cliEnv());
    }
    // An ended run shows nothing.
    expect((await shown(id)).json).toBeNull();
  });

  it('says on the --wait line of `backfill --no-local-worker` that no worker is connected', async () => {
    const watcher = startEnvdata(
      [
        'backfill',
        '--from',
        '2024-06-08',
        '--to',
        '2024-06-10',
        '--dataset',
        'weather',
        '--wait',
        '--no-local-worker',
      ],
      fx.cliEnv({ LOG_LEVEL: 'info' }),
    );
    try {
      const [line] = await watcher.waitFor(/"waiting":"waiting: no worker connected[^"]*"/, {
        timeoutMs: 30_000,
      });
      expect(line).toBe('"waiting":"waiting: no worker connected — start `envdata worker`"');
    } finally {
      watcher.child.kill('SIGINT');
      await watcher.exited;
    }
    const runId = /run (\d+)/.exec(watcher.stdout())?.[1];
    expect(runId).toBeDefined();
    await runCliInProcess(['cancel', runId!], fx.cliEnv());
  });
});

describe('queueWaiting', () => {
  const open = { status: 'running' as const, inFlight: 3, notYetDispatched: 0 };
  const later = new Date(Date.now() + 60_000);
  const quota: RunWaiting = { reason: 'quota (day)', until: later, hint: null };

  it('keeps the ledger’s hold, then throttled, then no worker; none for a run with no work left', () => {
    const none = { pausedUntil: null, workers: 1 };
    const paused = { pausedUntil: later, workers: 0 };
    expect(queueWaiting({ ...open, waiting: quota }, paused)).toBe(quota);
    expect(queueWaiting({ ...open, waiting: null }, paused)).toEqual({
      reason: 'throttled (429)',
      until: later,
      hint: null,
    });
    expect(queueWaiting({ ...open, waiting: null }, { pausedUntil: null, workers: 0 })).toEqual({
      reason: 'no worker connected',
      until: null,
      hint: 'start `envdata worker`',
    });
    expect(queueWaiting({ ...open, waiting: null }, none)).toBeNull();
    // Workers unknown (the queue did not answer): nothing claimed.
    expect(
      queueWaiting({ ...open, waiting: null }, { pausedUntil: null, workers: undefined }),
    ).toBeNull();
    expect(
      queueWaiting({ ...open, inFlight: 0, waiting: null }, { pausedUntil: null, workers: 0 }),
    ).toBeNull();
    expect(
      queueWaiting({ ...open, status: 'done', waiting: null }, { pausedUntil: later, workers: 0 }),
    ).toBeNull();
  });
});
