import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import type { App } from '../../src/app.js';
import { checkAlerts } from '../../src/notify/check-alerts.js';
import { cancelRunAndJobs } from '../../src/runs/control-run.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSync } from '../../src/sync/start-sync.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import {
  latencySummary,
  startAlertReceiver,
  type AlertReceiver,
} from '../harness/alert-receiver.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { pollUntil, waitForQueueEmpty } from '../harness/poll-until.js';
import { startEnvdata, type RunningEnvdata } from '../harness/start-envdata.js';
import { waitForRun } from '../harness/wait-for-run.js';

const WRONG_KEY = 'refused-key-0815';
const H = 3_600_000;
const T0 = new Date('2024-06-10T02:00:00Z');

const fx = useBackfillFixture({ now: T0.toISOString() });
let receiver: AlertReceiver;
let app: App;

beforeAll(async () => {
  receiver = await startAlertReceiver();
  app = fx.newApp({ ENVDATA_NOTIFY_URL: receiver.url, ENVDATA_NOTIFY_FORMAT: 'json' });
  // Delivery only: the test runs the periodic checks itself, at the simulator's time.
  await app.start({ notifications: { pollMs: 50, checkMs: 0 } });
});

afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

async function runToEnd(runId: number): Promise<void> {
  const worker = IngestWorker.start(app, { concurrency: 4 });
  try {
    expect((await waitForRun(app.db, runId)).status).toBe('done');
    await waitForQueueEmpty(app);
  } finally {
    await worker.close();
  }
}

async function events(): Promise<{ event: string; dedupe_key: string }[]> {
  return app.db
    .selectFrom('notification')
    .select(['event', 'dedupe_key'])
    .orderBy('notification_id')
    .execute();
}

describe('alerts on state transitions', () => {
  it('a healthy backfill and a healthy sync raise none', async () => {
    const { runId } = await fx.planBackfill({ ...backfillRange('2024-06-02', T0), now: T0 });
    await runToEnd(runId!);
    const sync = await startSync(app, T0);
    await runToEnd(sync.runId);
    await checkAlerts(app, { now: T0, watchingSince: T0 });
    expect(await events()).toEqual([]);
    expect(receiver.received).toEqual([]);
  });

  it('freshness: one breach for a stale location, none on a second check, one recovery after a sync', async () => {
    const [berlin] = fx.locations;
    // Its weather as if nothing had landed in the last 40 hours: older than the 36 h limit.
    await sql`update envdata.coverage
      set landed = landed - tstzmultirange(tstzrange(${new Date(T0.getTime() - 40 * H)}, null))
      where location_id = ${berlin!.locationId} and dataset = 'weather'`.execute(app.db);
    await checkAlerts(app, { now: T0 });
    expect(await events()).toEqual([
      { event: 'freshness-breached', dedupe_key: 'freshness:weather:breach:1' },
    ]);
    const [breach] = await receiver.waitFor((a) => a.body.event === 'freshness-breached');
    expect(breach!.body.text).toMatch(/^envdata: 1 location\(s\) stale for weather/);
    expect(breach!.body.details).toMatchObject({ dataset: 'weather', stale: 1 });

    await checkAlerts(app, { now: T0 });
    expect(await events()).toHaveLength(1);

    const sync = await startSync(app, T0);
    await runToEnd(sync.runId);
    await checkAlerts(app, { now: T0 });
    await checkAlerts(app, { now: T0 });
    expect((await events()).map((e) => e.dedupe_key)).toEqual([
      'freshness:weather:breach:1',
      'freshness:weather:recovery:2',
    ]);
    await receiver.waitFor((a) => a.body.event === 'freshness-recovered');
    expect(receiver.received).toHaveLength(2);
  });

  it('a refused key, three worker processes and two schedulers: exactly one "key refused" alert within 60 s', async () => {
    const before = receiver.received.length;
    const env = fx.cliEnv({
      ENVDATA_API_KEY: WRONG_KEY,
      ENVDATA_NOTIFY_URL: receiver.url,
      ENVDATA_NOTIFY_FORMAT: 'json',
      ENVDATA_RETRY_BASE_MS: '20',
      LOG_LEVEL: 'info',
    });
    const processes: RunningEnvdata[] = [];
    try {
      for (let i = 0; i < 3; i++)
        processes.push(startEnvdata(['worker', '--concurrency', '2'], env));
      for (let i = 0; i < 2; i++) processes.push(startEnvdata(['scheduler'], env));
      await Promise.all(
        processes.map((p) =>
          p.waitFor(/alerts are posted to ENVDATA_NOTIFY_URL/, { timeoutMs: 120_000 }),
        ),
      );

      const t1 = new Date(T0.getTime() + 24 * H);
      fx.simulator.setOptions({ now: t1.toISOString() });
      const refused = fx.newApp({ ENVDATA_API_KEY: WRONG_KEY });
      const sync = await startSync(refused, t1);
      const started = Date.now();
      const [alert] = await receiver.waitFor((a) => a.body.event === 'key-refused', 1, 60_000);
      expect(alert!.at - started).toBeLessThan(60_000);
      expect(alert!.body.text).toContain('ENVDATA_API_KEY');
      expect(alert!.body.text).toContain(`envdata resume ${sync.runId}`);
      expect(JSON.stringify(alert!.body)).not.toContain(WRONG_KEY);
      const latency = alert!.at - Date.parse(String(alert!.body.at));

      // Every process has seen the stop; the one alert is delivered and nothing more is due.
      expect((await waitForRun(app.db, sync.runId)).status).toBe('stopped');
      await pollUntil(
        async () => {
          const { rows } = await sql<{ pending: number }>`
            select count(*) filter (where status = 'pending')::int as pending
            from envdata.notification_delivery`.execute(app.db);
          return rows[0]!.pending === 0 ? { done: true } : { last: rows[0] };
        },
        { describe: (l) => `deliveries still pending: ${JSON.stringify(l)}` },
      );
      const keyRefused = (await events()).filter((e) => e.event === 'key-refused');
      expect(keyRefused).toEqual([
        { event: 'key-refused', dedupe_key: `run:${sync.runId}:stopped` },
      ]);
      expect(
        receiver.received.slice(before).filter((a) => a.body.event === 'key-refused'),
      ).toHaveLength(1);
      const { median, worst } = latencySummary([latency]);
      console.log(
        `key refused: alert received ${alert!.at - started} ms after the sync was dispatched; delivery latency (commit to receipt) median ${median} ms, worst ${worst} ms, with 3 workers and 2 schedulers each polling the outbox`,
      );
    } finally {
      for (const p of processes) p.child.kill('SIGTERM');
      await Promise.all(processes.map((p) => p.exited));
    }
  }, 300_000);

  it('no worker connected for ENVDATA_NO_WORKER_ALERT while a run waits, and a missed nightly sync: one event each', async () => {
    // A worker process of an earlier test that was stopped under load may have exited before
    // removing its heartbeat (that removal is bounded): it is listed alive until the beat expires.
    await pollUntil(
      async () => {
        const alive = (await app.queues.listWorkers(QUEUE_NAMES.ingest)).filter((w) => w.alive);
        return alive.length === 0 ? { done: undefined } : { last: alive.length };
      },
      { describe: (n) => `${n} worker(s) of earlier tests still listed alive` },
    );
    const start = await startBackfill(app, {
      ...backfillRange('2024-05-01', '2024-05-05'),
      locations: fx.locations,
    });
    const now = Date.now();
    await checkAlerts(app, { now: new Date(now) });
    expect((await events()).filter((e) => e.event === 'no-worker')).toEqual([]);
    // Ten minutes (ENVDATA_NO_WORKER_ALERT) later, twice.
    await checkAlerts(app, { now: new Date(now + 11 * 60_000) });
    await checkAlerts(app, { now: new Date(now + 12 * 60_000) });
    expect((await events()).filter((e) => e.event === 'no-worker')).toEqual([
      { event: 'no-worker', dedupe_key: 'no-worker:1' },
    ]);
    const [alert] = await receiver.waitFor((a) => a.body.event === 'no-worker');
    expect(alert!.body.text).toMatch(
      /^envdata: 1 run\(s\) have work waiting .* start workers: envdata worker/,
    );

    // A process watching since a day before the 02:00 UTC sync that never came.
    const since = new Date(Math.ceil(now / (24 * H)) * 24 * H + 24 * H);
    const later = new Date(since.getTime() + 28 * H);
    await checkAlerts(app, { now: later, watchingSince: since });
    await checkAlerts(app, { now: later, watchingSince: since });
    const due = new Date(since.getTime() + 26 * H).toISOString();
    expect((await events()).filter((e) => e.event === 'sync-missed')).toEqual([
      { event: 'sync-missed', dedupe_key: `sync-missed:${due}` },
    ]);
    // Its jobs are not the next test's.
    expect(await cancelRunAndJobs(app, start.runId!)).toBeDefined();
  });

  it('a refused product (403) and a run that ends failed: one event each, counts by cause and the command to run', async () => {
    const pollenOnly = 'pollen-only-key-42';
    fx.simulator.setOptions({
      keys: { [DEMO_API_KEY]: ['pollen', 'weather', 'geocode'], [pollenOnly]: ['pollen'] },
    });
    const berlin = fx.locations.filter((l) => l.name === 'Berlin');
    const runOf = async (
      extra: Record<string, string>,
      datasets: ('pollen' | 'weather')[],
      to = '2024-04-04',
    ) => {
      const other = fx.newApp({ ENVDATA_MAX_ATTEMPTS: '2', ...extra });
      const start = await startBackfill(other, {
        ...backfillRange('2024-04-02', to, { datasets }),
        locations: berlin,
      });
      const worker = IngestWorker.start(other, { concurrency: 2 });
      try {
        const progress = await waitForRun(other.db, start.runId!);
        expect(progress.status, JSON.stringify({ extra, progress })).toBe('failed');
      } finally {
        await worker.close();
      }
      return start.runId!;
    };
    const blocked = await runOf({ ENVDATA_API_KEY: pollenOnly }, ['pollen', 'weather']);
    fx.simulator.addFaultScripts('weather:error=503x2');
    // One chunk, whose two attempts both meet a 503.
    const failed = await runOf({}, ['weather'], '2024-04-03');

    const rows = await app.db
      .selectFrom('notification')
      .select(['event', 'dedupe_key', 'details'])
      .where('dedupe_key', 'in', [
        `run:${blocked}:forbidden:weather`,
        `run:${blocked}:ended`,
        `run:${failed}:ended`,
      ])
      .orderBy('notification_id')
      .execute();
    expect(rows.map((r) => r.event)).toEqual(['product-refused', 'run-ended', 'run-ended']);
    expect(rows[1]!.details).toMatchObject({ status: 'failed', blockedDatasets: ['weather'] });
    expect(rows[2]!.details).toMatchObject({
      status: 'failed',
      failedChunks: 1,
      failedByCode: { SERVER_ERROR: 1 },
      action: `envdata retry ${failed}`,
    });
    const [ended] = await receiver.waitFor(
      (a) =>
        a.body.event === 'run-ended' && (a.body.details as { runId?: number }).runId === failed,
    );
    // The text ends with the event's own time (UTC, 24 h), not only the delivery's.
    const at = String(ended!.body.at);
    expect(ended!.body.text).toBe(
      `envdata: backfill run ${failed} ended failed: 1 chunk(s) failed (1 SERVER_ERROR) — to do: envdata retry ${failed} (at ${at.slice(0, 10)} ${at.slice(11, 16)} UTC)`,
    );
  });
});
