import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import type { Environment } from '../../src/config/load-config.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { queuePauseMs } from '../../src/admission/queue-pause.js';
import { startBackfill, type BackfillRequest } from '../../src/runs/start-backfill.js';
import { DEMO_API_KEY, type RetryAfterFormat } from '../../src/simulator/simulator-options.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillWindows, useBackfillFixture } from '../harness/backfill-fixture.js';
import { captureLogger } from '../harness/capture-logger.js';
import { pollUntil } from '../harness/poll-until.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { expectThrottledRunRodeOut } from './expect-throttled-run.js';
import { runChunks } from './run-chunks.js';
import { workRun } from '../harness/work-run.js';

// The simulator's rate-limit windows follow its clock (see backfill.rate-limited.test.ts).
const fx = useBackfillFixture({ now: null, requestLog: 1_000 });

/** 31.7 years: what one `Retry-After: 999999999` used to pause every worker for. */
const DECADES_MS = 999_999_999_000;

// Each test's apps are closed after it: the Postgres leg opens pools for the queue too.
const apps: App[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** An app on the fixture's database, queue and simulator whose log lines are kept. */
function newApp(extra: Environment = {}) {
  const captured = captureLogger();
  const app = createApp(
    fx.env.config({
      ENVDATA_BASE_URL: fx.simulator.url,
      ENVDATA_API_KEY: DEMO_API_KEY,
      ENVDATA_RATE_LIMIT: 'off',
      ENVDATA_RETRY_BASE_MS: '20',
      ENVDATA_JOB_LOCK_MS: '2000',
      ENVDATA_ARCHIVE_RAW: 'false',
      ...extra,
    }),
    { logger: captured.logger },
  );
  apps.push(app);
  return { app, lines: captured.lines };
}

/** 2 datasets × 2 locations × `windows` 48-hour windows from `day`. */
function request(day: string, windows: number): BackfillRequest {
  return { ...backfillWindows(day, windows), locations: fx.locations };
}

/** Backfills `req` with one worker of `app`; the finished run's ledger. */
async function backfill(app: App, req: BackfillRequest) {
  const start = await startBackfill(app, req);
  const progress = await workRun(app, start.runId, { timeoutMs: 40_000 });
  return { start, progress, chunks: await runChunks(app.db, start.runId!) };
}

/**
 * One call a second, each 429 with `Retry-After` written as `retryAfterFormat` says: the four
 * chunks of a one-window run, started together by four job slots, meet 429s however slow the
 * machine.
 */
function throttle(retryAfterFormat: RetryAfterFormat): void {
  fx.simulator.resetStats();
  fx.simulator.resetLimits();
  fx.simulator.setOptions({
    rateLimit: { max: 1, durationMs: 1_000, retryAfter: 'always', retryAfterFormat },
  });
}

const ingestQueue = () => fx.app.queues.queue(QUEUE_NAMES.ingest);

beforeEach(async () => {
  fx.simulator.setOptions({ rateLimit: null });
  fx.simulator.clearFaults();
  await ingestQueue().obliterate({ force: true });
  await ingestQueue().removeRateLimitKey();
});

describe('a Retry-After no one should believe', () => {
  it.each([
    ['an absurd count of seconds', { header: '999999999' }, '2024-06-02'],
    ['a far-future HTTP-date', { header: 'Fri, 01 Jan 2100 00:00:00 GMT' }, '2024-06-08'],
  ] as const)(
    'is not believed (%s): the run rides out the 429s on the backoff, with one warning',
    async (_what, format, day) => {
      throttle(format);
      const { app, lines } = newApp();
      const { progress, chunks } = await backfill(app, request(day, 1));
      expect(progress).toMatchObject({ status: 'done', done: 4, failed: 0 });
      expectThrottledRunRodeOut(fx.simulator.stats(), chunks, 4);
      const warnings = lines.filter((l) => l.includes('Retry-After of more than a day'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({ retryAfter: format.header });
      // Whatever pause is left is the backoff's (at most a minute for a 429), not the header's.
      expect(await queuePauseMs(ingestQueue())).toBeLessThanOrEqual(60_000);
    },
  );

  it('milliseconds sent for seconds pause every worker no longer than ENVDATA_MAX_PAUSE', async () => {
    // Each 429 says `Retry-After: 1000` for a window that ends within a second: 16 minutes read
    // as meant. Under ENVDATA_MAX_PAUSE=1s the workers ask again after a second.
    throttle('milliseconds');
    const { app } = newApp({ ENVDATA_MAX_PAUSE: '1s' });
    const { progress, chunks } = await backfill(app, request('2024-06-14', 1));
    expect(progress).toMatchObject({ status: 'done', done: 4, failed: 0 });
    expectThrottledRunRodeOut(fx.simulator.stats(), chunks, 4);
    expect(await queuePauseMs(ingestQueue())).toBeLessThanOrEqual(1_000);
  });
});

describe('a pause of every worker left in the queue', () => {
  it('shows in `envdata status` with its end, text and --json', async () => {
    await ingestQueue().rateLimit(DECADES_MS);
    const before = Date.now();
    const json = await runCliInProcess(['status', '--json'], fx.cliEnv());
    const pausedUntil = Date.parse(JSON.parse(json.stdout).queue.pausedUntil);
    expect(pausedUntil).toBeGreaterThan(before + DECADES_MS - 60_000);
    expect(pausedUntil).toBeLessThanOrEqual(Date.now() + DECADES_MS);

    const text = await runCliInProcess(['status'], fx.cliEnv());
    const year = new Date(pausedUntil).getUTCFullYear();
    expect(text.stdout).toMatch(new RegExp(`every worker paused until ${year}-.* UTC`));
    expect(text.stdout).toContain('`envdata resume` ends it now');
  });

  it('is ended by `envdata resume` (no run), for every worker', async () => {
    await ingestQueue().rateLimit(DECADES_MS);
    const resumed = await runCliInProcess(['resume'], fx.cliEnv());
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/the pause of every worker \(\d+ d \d+ h left\) ended/);
    expect(await queuePauseMs(ingestQueue())).toBe(0);
    const json = await runCliInProcess(['status', '--json'], fx.cliEnv());
    expect(JSON.parse(json.stdout).queue.pausedUntil).toBeNull();
  });

  it('is shortened to ENVDATA_MAX_PAUSE by a worker that starts, which then works the run off', async () => {
    const { app, lines } = newApp({ ENVDATA_MAX_PAUSE: '1s' });
    const start = await startBackfill(app, request('2024-06-20', 1));
    await ingestQueue().rateLimit(DECADES_MS);
    const worker = IngestWorker.start(app, { concurrency: 4 });
    try {
      const progress = await waitForRun(app.db, start.runId!, { timeoutMs: 20_000 });
      expect(progress).toMatchObject({ status: 'done', done: 4, failed: 0 });
    } finally {
      await worker.close();
    }
    expect(lines.some((l) => l.includes('longer than ENVDATA_MAX_PAUSE: shortened to it'))).toBe(
      true,
    );
  });

  it('is not extended by a worker that meets a 429: the cap holds for every pause it sets', async () => {
    throttle({ header: '86400' });
    const { app } = newApp({ ENVDATA_MAX_PAUSE: '1s' });
    const start = await startBackfill(app, request('2024-06-22', 1));
    const worker = IngestWorker.start(app, { concurrency: 4 });
    try {
      // A day asked for, believed, and cut to a second: the run goes on.
      const progress = await waitForRun(app.db, start.runId!, { timeoutMs: 30_000 });
      expect(progress).toMatchObject({ status: 'done', done: 4, failed: 0 });
    } finally {
      await worker.close();
    }
    expect(fx.simulator.stats().byStatus['429']).toBeGreaterThan(0);
    await pollUntil(
      async () => {
        const left = await queuePauseMs(ingestQueue());
        return left <= 1_000 ? { done: left } : { last: left };
      },
      { timeoutMs: 5_000, describe: (left) => `a pause of ${left} ms is left` },
    );
  });
});

describe('a 5xx that sends Retry-After', () => {
  /**
   * Backfills weather only (2 chunks) with the first weather call answered 503 carrying
   * `retryAfter`; how long after that answer the chunk was asked for again, and the chunks.
   */
  async function retriedAfter(day: string, retryAfter: string, env: Environment = {}) {
    fx.simulator.resetStats();
    fx.simulator.setFaults({
      scripts: [{ endpoint: 'weather-history', kind: 'error', status: 503, retryAfter, count: 1 }],
    });
    const { app } = newApp(env);
    const { progress, chunks } = await backfill(app, {
      ...request(day, 1),
      datasets: ['weather'],
    });
    expect(progress).toMatchObject({ status: 'done', done: 2, failed: 0 });
    const calls = fx.simulator.requests().filter((r) => r.endpoint === 'weather-history');
    const failed = calls.find((r) => r.answer === 503)!;
    const again = calls.find((r) => r.query === failed.query && r.at > failed.at)!;
    expect(again.answer).toBe(200);
    return { waitedMs: again.at - failed.answeredAt!, chunks };
  }

  it('is honoured: the chunk is fetched again no sooner than it asked, as an attempt', async () => {
    // ENVDATA_RETRY_BASE_MS is 20 ms here: only the header can make it wait 2 s.
    const { waitedMs, chunks } = await retriedAfter('2024-06-26', '2');
    expect(waitedMs).toBeGreaterThanOrEqual(2_000);
    expect(waitedMs).toBeLessThan(15_000);
    expect(chunks.map((c) => c.attempts).sort()).toEqual([1, 2]);
  });

  it('is honoured within ENVDATA_MAX_PAUSE: a day asked for waits the cap', async () => {
    const { waitedMs } = await retriedAfter('2024-06-28', '86400', {
      ENVDATA_MAX_PAUSE: '1s',
    });
    expect(waitedMs).toBeGreaterThanOrEqual(1_000);
    expect(waitedMs).toBeLessThan(15_000);
  });
});
