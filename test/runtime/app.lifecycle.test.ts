import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App, type AppComponent } from '../../src/app.js';
import { sendText } from '../../src/runtime/http-server.js';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { openResources, type OpenResource } from '../../src/lifecycle/open-resources.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { NIGHTLY_SYNC_SCHEDULER_ID } from '../../jobs/nightly-sync-job.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForRun } from '../harness/wait-for-run.js';

const fx = useBackfillFixture();
const SHUTDOWN_TIMEOUT_MS = 1_000;
const started: App[] = [];

afterEach(async () => {
  for (const app of started.splice(0)) await app.stop();
});

/** What this test opened and left open: the fixture's own app and simulator stay open. */
function leftOpen(before: readonly OpenResource[]): string[] {
  return openResources()
    .filter((r) => !before.includes(r))
    .map((r) => `${r.kind} ${r.name}`);
}

/** An app of this file's fixture, stopped after the test. */
function newApp(extra: Record<string, string> = {}): App {
  const app = createApp(
    fx.env.config({
      ENVDATA_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      ENVDATA_BASE_URL: fx.simulator.url,
      ENVDATA_RATE_LIMIT: 'off',
      ENVDATA_ARCHIVE_RAW: 'false',
      ...extra,
    }),
  );
  started.push(app);
  return app;
}

/** A component that writes what happens to it in `events`. */
function recorder(
  name: string,
  events: string[],
  behaviour: { failStart?: boolean; neverStops?: boolean } = {},
): AppComponent {
  return {
    name,
    start: () => {
      events.push(`start ${name}`);
      return behaviour.failStart
        ? Promise.reject(new Error(`${name} cannot start`))
        : Promise.resolve();
    },
    stop: (timeoutMs) => {
      events.push(
        `stop ${name} within ${timeoutMs <= SHUTDOWN_TIMEOUT_MS ? 'the timeout' : timeoutMs}`,
      );
      return behaviour.neverStops ? new Promise(() => undefined) : Promise.resolve();
    },
  };
}

describe('App.start() and App.stop()', () => {
  it('start components in the order added and stop them in reverse, then close the resources', async () => {
    const before = openResources();
    const app = newApp();
    const events: string[] = [];
    await app.db.selectFrom('location').select('location_id').execute();
    await app.add(recorder('a', events)).add(recorder('b', events)).start();
    await app.start({ http: { host: '127.0.0.1', port: 0 } });
    await app.stop();
    expect(events).toEqual([
      'start a',
      'start b',
      'stop b within the timeout',
      'stop a within the timeout',
    ]);
    expect(() => app.db).toThrow(/closed/);
    expect(() => app.add(recorder('c', events))).toThrow(/stopping/);
    expect(leftOpen(before)).toEqual([]);
    // close() is stop(): a second call is a no-op.
    await app.close();
  });

  it('stops what started when a component fails to start, and throws its error', async () => {
    const app = newApp();
    const events: string[] = [];
    app.add(recorder('a', events)).add(recorder('b', events, { failStart: true }));
    app.add(recorder('c', events));
    await expect(app.start()).rejects.toThrow('b cannot start');
    expect(events).toEqual(['start a', 'start b', 'stop a within the timeout']);
    await app.stop();
    expect(events).toHaveLength(3);
  });

  it('is bounded by ENVDATA_SHUTDOWN_TIMEOUT_MS even when a component never stops', async () => {
    const before = openResources();
    const app = newApp();
    const events: string[] = [];
    await app
      .add(recorder('first', events))
      .add(recorder('stuck', events, { neverStops: true }))
      .start();
    await app.queues.queue(QUEUE_NAMES.ingest).getJobCounts();
    const stopping = Date.now();
    await app.stop();
    // The timeout, plus the moment a component is given to hand back what it abandoned.
    expect(Date.now() - stopping).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 1_500);
    expect(events).toEqual([
      'start first',
      'start stuck',
      'stop stuck within the timeout',
      'stop first within the timeout',
    ]);
    expect(leftOpen(before)).toEqual([]);
  });
});

describe('the HTTP server component', () => {
  it('answers /healthz and the routes given, 404 and 405 otherwise, until the app stops', async () => {
    const before = openResources();
    const app = newApp();
    await app.start({
      http: {
        host: '127.0.0.1',
        port: 0,
        routes: [{ method: 'GET', path: '/hello', handler: (_q, r) => sendText(r, 200, 'hi\n') }],
      },
    });
    const url = app.http!.url;
    app.http!.route('POST', '/later', (_q, r) => sendText(r, 201, 'added after start\n'));

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('ok\n');
    expect(await (await fetch(`${url}/hello?x=1`)).text()).toBe('hi\n');
    expect((await fetch(`${url}/later`, { method: 'POST' })).status).toBe(201);
    expect((await fetch(`${url}/nope`)).status).toBe(404);
    const wrong = await fetch(`${url}/healthz`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect(openResources().map((r) => r.kind)).toContain('http server');

    await app.stop();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(leftOpen(before)).toEqual([]);
  });

  it('answers 500 when a handler throws, and keeps serving', async () => {
    const app = newApp();
    await app.start({
      http: {
        host: '127.0.0.1',
        port: 0,
        routes: [
          {
            method: 'GET',
            path: '/broken',
            handler: () => Promise.reject(new Error('a bug')),
          },
        ],
      },
    });
    expect((await fetch(`${app.http!.url}/broken`)).status).toBe(500);
    expect((await fetch(`${app.http!.url}/healthz`)).status).toBe(200);
  });

  it('fails to start on a port that is taken, leaving nothing open', async () => {
    const before = openResources();
    const first = newApp();
    await first.start({ http: { host: '127.0.0.1', port: 0 } });
    const port = Number(new URL(first.http!.url).port);
    const second = newApp();
    await expect(second.start({ http: { host: '127.0.0.1', port } })).rejects.toThrow(/EADDRINUSE/);
    await second.stop();
    expect(leftOpen(before)).toEqual([`http server ${first.http!.url}`]);
  });
});

describe('app.serviceClient', () => {
  it('is one client, created on first use', () => {
    const app = newApp({ ENVDATA_API_KEY: 'envdata-demo-key' });
    expect(app.serviceClient).toBe(app.serviceClient);
  });

  it('needs ENVDATA_API_KEY: CONFIG_INVALID, and so does a worker', () => {
    const app = newApp({ ENVDATA_API_KEY: '' });
    const error = (() => {
      try {
        return app.serviceClient;
      } catch (e) {
        return e;
      }
    })();
    expect(isEnvdataError(error) && error.code).toBe('CONFIG_INVALID');
    expect((error as Error).message).toMatch(/^ENVDATA_API_KEY is not set: /);
    return expect(app.start({ worker: { concurrency: 1 } })).rejects.toThrow(/ENVDATA_API_KEY/);
  });
});

describe('app.start({ worker, scheduler })', () => {
  it('runs a worker that works off a backfill and the nightly schedule, until stop()', async () => {
    const before = openResources();
    const app = newApp({ ENVDATA_API_KEY: 'envdata-demo-key' });
    await app.start({ worker: { concurrency: 2 }, scheduler: true });
    expect(app.worker).toBeDefined();
    expect(app.scheduler).toBeDefined();
    const schedulers = await app.queues.queue(QUEUE_NAMES.sync).getJobSchedulers();
    expect(schedulers.map((s) => s.key)).toEqual([NIGHTLY_SYNC_SCHEDULER_ID]);

    const start = await startBackfill(app, {
      datasets: ['weather'],
      locations: fx.locations,
      from: new Date('2024-06-02T00:00:00Z'),
      to: new Date('2024-06-04T00:00:00Z'),
      windowHours: 48,
    });
    const progress = await waitForRun(app.db, start.runId!, { timeoutMs: 30_000 });
    expect(progress).toMatchObject({ status: 'done', done: 2, failed: 0 });
    const connected = await app.queues.listWorkers(QUEUE_NAMES.ingest);
    expect(connected).toHaveLength(1);

    await app.stop();
    expect(leftOpen(before)).toEqual([]);
    // The worker's connection is gone: no worker is listed any more.
    const watcher = newApp();
    expect(await watcher.queues.listWorkers(QUEUE_NAMES.ingest)).toEqual([]);
  });
});
