import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNotification } from '../../src/ledger/record-notification.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { pollUntil } from '../harness/poll-until.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { serveConsole, type ServedConsole } from './serve-console.js';

const fx = useBackfillFixture();
const TOKEN = 'console-test-token-0123456789';
let served: ServedConsole;
let runId: number;

beforeAll(async () => {
  served = await serveConsole(fx, { token: TOKEN, env: { ENVDATA_PRICE_PER_CALL: '0.25 EUR' } });
  const start = await startBackfill(fx.app, {
    ...backfillRange('2024-06-02', '2024-06-06'),
    locations: fx.locations,
  });
  runId = start.runId!;
  const worker = IngestWorker.start(fx.app, { concurrency: 4 });
  try {
    await waitForRun(fx.app.db, runId);
  } finally {
    await worker.close();
  }
});

afterAll(() => served.stop());

async function getJson(path: string, init: RequestInit = {}) {
  const response = await fetch(`${served.url}${path}`, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('/readyz', () => {
  it('answers 200 with every check passed when Postgres, the queue and the migrations are fine', async () => {
    const { status, body } = await getJson('/readyz');
    expect(status).toBe(200);
    expect(body).toEqual({
      ready: true,
      checks: {
        postgres: { ok: true },
        queue: { ok: true, backend: fx.env.queueBackend },
        migrations: { ok: true },
      },
    });
  });

  it('answers 503 naming Postgres when its database does not answer', async () => {
    const down = await serveConsole(fx, {
      env: { DATABASE_URL: fx.env.databaseUrl.replace(/\/[^/]+$/, '/envdata_no_such_database') },
    });
    try {
      const response = await fetch(`${down.url}/readyz`);
      const status = response.status;
      const body = (await response.json()) as ReadyBody;
      expect(status).toBe(503);
      expect(body.ready).toBe(false);
      expect(body.checks.postgres.ok).toBe(false);
      expect(body.checks.postgres.problem).toMatch(/envdata_no_such_database/);
      expect(body.checks.migrations).toEqual({
        ok: false,
        problem: 'not checked: Postgres does not answer',
      });
      // On the postgres backend the queue is that database too.
      expect(body.checks.queue.ok).toBe(fx.env.queueBackend === 'redis');
      // Liveness is not readiness: the process itself is fine.
      expect((await fetch(`${down.url}/healthz`)).status).toBe(200);
    } finally {
      await down.stop();
    }
  });

  it('answers 503 naming the migrations when one is pending', async () => {
    // The database as an older envdata left it: its last migration not applied.
    const { rows } = await sql<{ name: string; timestamp: string }>`
      delete from envdata_migration
      where name = (select max(name) from envdata_migration) returning *`.execute(fx.app.db);
    try {
      const { status, body } = await getJson('/readyz');
      expect(status).toBe(503);
      const checks = body.checks as ReadyBody['checks'];
      expect(checks.postgres.ok).toBe(true);
      expect(checks.migrations).toMatchObject({
        ok: false,
        pending: [rows[0]!.name],
        problem: '1 migration(s) pending: run `envdata migrate`',
      });
    } finally {
      await sql`insert into envdata_migration (name, timestamp)
        values (${rows[0]!.name}, ${rows[0]!.timestamp})`.execute(fx.app.db);
    }
    expect((await getJson('/readyz')).status).toBe(200);
  });
});

interface ReadyBody {
  ready: boolean;
  checks: {
    postgres: { ok: boolean; problem?: string };
    queue: { ok: boolean };
    migrations: { ok: boolean; problem?: string };
  };
}

describe('the JSON API', () => {
  it('lists runs with their chunks by state, rows, calls and pace', async () => {
    const { status, body } = await getJson('/api/runs');
    expect(status).toBe(200);
    const runs = body.runs as Record<string, unknown>[];
    expect(runs[0]).toMatchObject({
      runId,
      kind: 'backfill',
      status: 'done',
      chunks: { done: 8, missingUpstream: 0, running: 0, queued: 0, failed: 0 },
      total: 8,
      calls: 8,
      callsPerSecond: 0,
      etaSeconds: null,
    });
    const progress = await waitForRun(fx.app.db, runId);
    expect(runs[0]!.rows).toBe(progress.rows);
  });

  it('shows one run with its progress and failures, 404 for none, 400 for no id', async () => {
    const { status, body } = await getJson(`/api/runs/${runId}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      run: { runId, total: 8 },
      progress: { runId, done: 8, failed: 0 },
      failures: [],
    });
    // What it was asked to do, and what it cost: 8 calls at €0.25.
    const range = backfillRange('2024-06-02', '2024-06-06');
    expect(body.scope).toEqual({
      datasets: [...range.datasets],
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      locations: fx.locations.length,
      locationNames: [...fx.locations]
        .sort((a, b) => a.locationId - b.locationId)
        .map((l) => l.name)
        .slice(0, 5),
      cost: '€2.00',
    });
    expect(await getJson('/api/runs/99999')).toEqual({
      status: 404,
      body: { error: 'there is no run 99999' },
    });
    expect(await getJson('/api/runs/x1')).toEqual({
      status: 400,
      body: { error: '"x1" is not a run id' },
    });
  });

  it('answers the coverage grid by month and by year, and names a bad parameter', async () => {
    const { status, body } = await getJson('/api/coverage?dataset=weather&bucket=month');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      dataset: 'weather',
      bucket: 'month',
      fromYear: 2024,
      toYear: 2024,
      page: 1,
      pageSize: 50,
      locations: 2,
    });
    expect(body.buckets).toHaveLength(12);
    const rows = body.rows as { name: string; cells: string }[];
    // Four days of June landed: June is partly covered, the other months were never planned.
    expect(rows.map((r) => [r.name, r.cells])).toEqual([
      ['Berlin', '.....p......'],
      ['Brisbane', '.....p......'],
    ]);
    const years = await getJson('/api/coverage?dataset=weather&bucket=year&from=2023&to=2024');
    expect((years.body.rows as { cells: string }[]).map((r) => r.cells)).toEqual(['.p', '.p']);
    expect(await getJson('/api/coverage?bucket=week')).toEqual({
      status: 400,
      body: { error: 'bucket must be month or year (got "week")' },
    });
    expect((await getJson('/api/coverage?pageSize=5000')).status).toBe(400);
  });

  it('lists freshness stale first, and the call rate per minute against the limit', async () => {
    const fresh = await getJson('/api/freshness');
    expect(fresh.status).toBe(200);
    const rows = fresh.body.rows as {
      name: string;
      dataset: string;
      stale: boolean;
      knownEmpty: boolean;
    }[];
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.stale)).toBe(true);
    // Never asked is not known empty (that is the service answering "no data" for every hour).
    expect(rows.every((r) => !r.knownEmpty)).toBe(true);
    expect(fresh.body.stale).toBe(4);

    await sql`insert into envdata.api_call_minute (minute, endpoint, calls, throttled, failed)
      values (date_trunc('minute', now()) - interval '2 minutes', 'weather_history', 540, 3, 1),
             (date_trunc('minute', now()) - interval '2 minutes', 'pollen_history', 60, 0, 0),
             (date_trunc('minute', now()) - interval '90 minutes', 'pollen_history', 60, 9, 0)`.execute(
      fx.app.db,
    );
    const { body } = await getJson('/api/rate-limit');
    const minutes = body.minutes as number[];
    expect(minutes).toHaveLength(60);
    expect(minutes[59]! - minutes[0]!).toBe(59 * 60);
    // The fixture runs with ENVDATA_RATE_LIMIT=off.
    expect(body.limitPerSecond).toBeNull();
    expect((body.callsPerSecond as number[])[57]).toBe(10);
    expect((body.throttled as number[]).reduce((a, b) => a + b, 0)).toBe(3);
    expect((body.failed as number[])[57]).toBe(1);
    expect(body.pausedUntil).toBeNull();
  });

  it('shows a pause of every worker in force, with its end, until it is over', async () => {
    const queue = fx.app.queues.queue(QUEUE_NAMES.ingest);
    await queue.rateLimit(600_000);
    try {
      const before = Date.now();
      const { body } = await getJson('/api/rate-limit');
      const end = Date.parse(body.pausedUntil as string);
      expect(end).toBeGreaterThan(before + 590_000);
      expect(end).toBeLessThanOrEqual(Date.now() + 600_000);
    } finally {
      await queue.removeRateLimitKey();
    }
    expect((await getJson('/api/rate-limit')).body.pausedUntil).toBeNull();
  });

  it('lists the recent alerts, newest first, with their message and delivery', async () => {
    expect(await getJson('/api/alerts')).toEqual({
      status: 200,
      body: { targets: [], events: [] },
    });
    await recordNotification(fx.app.db, {
      key: 'run:77:stopped',
      event: 'key-refused',
      details: { runId: 77, code: 'UNAUTHORIZED' },
    });
    await sql`insert into envdata.notification_delivery (notification_id, target, last_error)
      select notification_id, 'abc123', 'HTTP 500' from envdata.notification`.execute(fx.app.db);
    const { body } = await getJson('/api/alerts');
    expect(body.events).toEqual([
      expect.objectContaining({
        event: 'key-refused',
        text: expect.stringContaining('check ENVDATA_API_KEY, then envdata resume 77'),
        delivered: 0,
        pending: 1,
        lastError: 'HTTP 500',
      }),
    ]);
  });

  it('shows a freshness breach as resolved by the recovery that followed it', async () => {
    const record = async (key: string, event: 'freshness-breached' | 'freshness-recovered') => {
      await recordNotification(fx.app.db, { key, event, details: { dataset: 'weather' } });
      const row = await fx.app.db
        .selectFrom('notification')
        .select(['notification_id', 'created_at'])
        .where('dedupe_key', '=', key)
        .executeTakeFirstOrThrow();
      return { id: Number(row.notification_id), at: row.created_at.toISOString() };
    };
    const breach = await record('freshness:weather:breach:1', 'freshness-breached');
    const recovery = await record('freshness:weather:recovery:2', 'freshness-recovered');
    const { body } = await getJson('/api/alerts');
    const events = body.events as { id: number }[];
    expect(events.find((e) => e.id === breach.id)).toMatchObject({ resolvedBy: recovery });
    expect(events.find((e) => e.id === recovery.id)).toMatchObject({ resolves: breach });
  });

  it("lists the shapes of the service's answers: one baseline per endpoint, counting every answer", async () => {
    const { status, body } = await getJson('/api/upstream');
    expect(status).toBe(200);
    const calls = await fx.app.db
      .selectFrom('chunk')
      .select(['dataset', (eb) => eb.fn.sum<string>('calls').as('calls')])
      .where('run_id', '=', runId)
      .groupBy('dataset')
      .execute();
    const byEndpoint = Object.fromEntries(
      calls.map((c) => [`${c.dataset} history`, Number(c.calls)]),
    );
    expect(Object.keys(byEndpoint).sort()).toEqual(['pollen history', 'weather history']);
    expect(body.shapes).toEqual(
      // By endpoint: dataset, then source.
      Object.entries(byEndpoint)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([endpoint, answers]) =>
          expect.objectContaining({ endpoint, status: 'baseline', answers, changes: [] }),
        ),
    );
  });

  it('serves the page, its script and uPlot from the package', async () => {
    const page = await fetch(`${served.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module" src="/assets/console.js">');
    const uplot = await fetch(`${served.url}/assets/uplot.js`);
    expect(uplot.headers.get('content-type')).toMatch(/javascript/);
    expect(await uplot.text()).toMatch(/export \{ uPlot as default \}|export default/);
    expect((await fetch(`${served.url}/assets/..%2Fpackage.json`)).status).toBe(404);
  });

  it('serves Bull Board read-only under /queues, with its assets, for the envdata queues', async () => {
    const page = await fetch(`${served.url}/queues`);
    expect(page.status).toBe(200);
    const html = await page.text();
    // Everything it loads is its own (relative to <base href="/queues/">): no font from a CDN.
    expect(html).toContain('<base href="/queues/"');
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    const assets = [...html.matchAll(/(?:src|href)="(static\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThan(1);
    for (const asset of assets) {
      expect((await fetch(`${served.url}/queues/${asset}`)).status, asset).toBe(200);
    }
    const { status, body } = await getJson('/queues/api/queues?activeQueue=ingest&page=1');
    expect(status).toBe(200);
    const queues = body.queues as { name: string; readOnlyMode: boolean }[];
    expect(queues.map((q) => q.name).sort()).toEqual(['ingest', 'sync']);
    expect(queues.every((q) => q.readOnlyMode)).toBe(true);
    // Its header's figures: Redis's INFO, or Postgres's own on the postgres backend.
    const stats = await getJson('/queues/api/redis/stats');
    expect(stats.status).toBe(200);
    expect(stats.body.backend ?? 'redis').toBe(fx.env.queueBackend);
    // Read-only twice over: the server routes no method but GET under /queues.
    const pause = await fetch(`${served.url}/queues/api/queues/ingest/pause`, { method: 'PUT' });
    expect(pause.status).toBe(405);
  });
});

describe('/api/workers', () => {
  it('lists the workers alive by their heartbeat, with the jobs in hand, until they close', async () => {
    const listed = () =>
      getJson('/api/workers').then(({ body }) => body.workers as Record<string, unknown>[]);
    const worker = IngestWorker.start(fx.app, { concurrency: 2 });
    try {
      type Listed = Record<string, unknown>[];
      const [w] = await pollUntil<Listed, Listed>(
        async () => {
          const ws = await listed();
          // Its heartbeat starts with it; its connection is named once BullMQ connects.
          return ws.length === 1 && ws[0]!.alive && ws[0]!.connected ? { done: ws } : { last: ws };
        },
        { timeoutMs: 10_000, describe: (ws) => `no worker alive: ${JSON.stringify(ws)}` },
      );
      expect(w).toMatchObject({
        pid: process.pid,
        concurrency: 2,
        alive: true,
        busy: 0,
        connected: true,
        lastHeartbeatAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      });
      expect((await getJson('/api/workers')).body.heartbeatMs).toBe(
        fx.app.config.worker.heartbeatMs,
      );
    } finally {
      await worker.close();
    }
    await pollUntil(
      async () => {
        const ws = await listed();
        return ws.length === 0 ? { done: undefined } : { last: ws };
      },
      { timeoutMs: 5_000, describe: (ws) => `a closed worker is listed: ${JSON.stringify(ws)}` },
    );
  });
});

describe('access', () => {
  it('refuses every request but /healthz, /readyz and /metrics without the token beyond loopback', async () => {
    const open = await serveConsole(fx, { host: '0.0.0.0', token: TOKEN });
    try {
      for (const path of ['/', '/api/runs', '/queues']) {
        expect((await fetch(`${open.url}${path}`)).status, path).toBe(401);
        const wrong = await fetch(`${open.url}${path}`, {
          headers: { authorization: `Bearer ${TOKEN}x` },
        });
        expect(wrong.status, path).toBe(401);
        const right = await fetch(`${open.url}${path}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        expect(right.status, path).toBe(200);
      }
      expect((await fetch(`${open.url}/`)).headers.get('content-type')).toMatch(/html/);
      expect((await fetch(`${open.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${open.url}/readyz`)).status).toBe(200);
      // Prometheus scrapes the console without the token: the ledger's gauges are there.
      const metrics = await fetch(`${open.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(await metrics.text()).toMatch(/^envdata_chunks\{state="done"\} \d+$/m);

      // The sign-in form sets a cookie that works as the token.
      const login = await fetch(`${open.url}/login`, {
        method: 'POST',
        body: new URLSearchParams({ token: TOKEN, next: '/#/runs' }),
        redirect: 'manual',
      });
      expect(login.status).toBe(303);
      expect(login.headers.get('location')).toBe('/#/runs');
      // A path whose dot segments resolve to another host (`//evil.example`) is refused, as it
      // comes back to the form and after signing in.
      for (const hostile of ['/..//evil.example', '/%2e%2e//evil.example', '/a/../..//x.example']) {
        const form = await fetch(`${open.url}/login?next=${encodeURIComponent(hostile)}`);
        expect(await form.text(), hostile).not.toMatch(/\/\/[a-z]+\.example/);
        const posted = await fetch(`${open.url}/login`, {
          method: 'POST',
          body: new URLSearchParams({ token: TOKEN, next: hostile }),
          redirect: 'manual',
        });
        expect(posted.headers.get('location'), hostile).toBe('/');
      }
      const cookie = login.headers.get('set-cookie')!;
      expect(cookie).toMatch(/HttpOnly; SameSite=Strict/);
      const withCookie = await fetch(`${open.url}/api/runs`, {
        headers: { cookie: cookie.split(';')[0]! },
      });
      expect(withCookie.status).toBe(200);
      const refused = await fetch(`${open.url}/login`, {
        method: 'POST',
        body: new URLSearchParams({ token: 'not-the-token-at-all' }),
      });
      expect(refused.status).toBe(401);
    } finally {
      await open.stop();
    }
  });

  it('refuses actions without the token on loopback, from another origin, and without one configured', async () => {
    const retry = `${served.url}/api/runs/${runId}/retry-failed`;
    const none = await fetch(retry, { method: 'POST' });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({
      error: 'this action needs the console token: sign in, or send Authorization: Bearer …',
    });
    const crossSite = await fetch(retry, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' },
    });
    expect(crossSite.status).toBe(403);
    const ok = await fetch(retry, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ runId, requeued: 0 });

    const tokenless = await serveConsole(fx);
    try {
      const disabled = await fetch(`${tokenless.url}/api/runs/${runId}/retry-failed`, {
        method: 'POST',
        headers: { authorization: 'Bearer anything-at-all-here' },
      });
      expect(disabled.status).toBe(403);
      expect(((await disabled.json()) as { error: string }).error).toMatch(
        /actions are disabled: set ENVDATA_CONSOLE_TOKEN/,
      );
      // Reads need no token on loopback.
      expect((await fetch(`${tokenless.url}/api/runs`)).status).toBe(200);
    } finally {
      await tokenless.stop();
    }
  });

  it('`envdata serve` checks its flags and refuses a bind beyond loopback without a token (exit 2)', async () => {
    const beyond = await runCliInProcess(
      ['serve', '--host', '0.0.0.0', '--port', '0'],
      fx.cliEnv(),
    );
    expect(beyond.code).toBe(2);
    expect(beyond.stderr).toMatch(
      /--host 0\.0\.0\.0 is beyond loopback: set ENVDATA_CONSOLE_TOKEN/,
    );
    const port = await runCliInProcess(['serve', '--port', 'http'], fx.cliEnv());
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port/);
    const short = await runCliInProcess(
      ['serve', '--port', '0'],
      fx.cliEnv({ ENVDATA_CONSOLE_TOKEN: 'short' }),
    );
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/ENVDATA_CONSOLE_TOKEN: must be at least 16 characters/);
    expect(short.stderr).not.toContain('short"');
  });
});
