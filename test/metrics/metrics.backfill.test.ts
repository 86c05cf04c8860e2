import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import type { Config } from '../../src/config/config.js';
import { parseRateLimits, type RateLimitRule } from '../../src/config/rate-limit.js';
import { metricsRoute } from '../../src/runtime/metrics-route.js';
import { QUEUE_JOB_STATES } from '../../src/metrics/envdata-metrics.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { startBackfill, type BackfillRequest } from '../../src/runs/start-backfill.js';
import { ENDPOINTS } from '../../src/service/endpoints.js';
import { SIMULATOR_ENDPOINTS } from '../../src/simulator/simulator-endpoints.js';
import type { SimulatorStats } from '../../src/simulator/stats/simulator-stats.js';
import { backfillWindows, useBackfillFixture } from '../harness/backfill-fixture.js';
import { captureLogger } from '../harness/capture-logger.js';
import { pollUntil } from '../harness/poll-until.js';
import { waitForRun } from '../harness/wait-for-run.js';
import {
  checkWithPromtool,
  parsePrometheusText,
  samplesBy,
  type Sample,
} from './prometheus-text.js';
import { needsTools } from '../harness/system-tools.js';

// The simulator's rate-limit windows follow its clock: a frozen `now` would never open a new one.
const fx = useBackfillFixture({ now: null });

const apps: App[] = [];

/** An app on the fixture's database, queue and simulator whose gauges are read at every scrape. */
function metricsApp(patch: Partial<Config> = {}, options: Parameters<typeof createApp>[1] = {}) {
  const app = createApp(
    { ...fx.app.config, ...patch },
    { metrics: { collectTtlMs: 0 }, ...options },
  );
  apps.push(app);
  return app;
}

/** Starts the app's HTTP server with `/metrics`, on a free port. */
function serveMetrics(app: App): Promise<void> {
  return app.start({ http: { host: '127.0.0.1', port: 0, routes: [metricsRoute(app)] } });
}

/** `GET /metrics` over HTTP: answered 200 in Prometheus's format, accepted by promtool. */
async function scrape(app: App): Promise<Sample[]> {
  const response = await fetch(`${app.http!.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe(app.metrics.registry.contentType);
  const text = await response.text();
  checkWithPromtool(text);
  return parsePrometheusText(text);
}

/** 2 datasets × 2 locations × `windows` 48-hour windows from `day` (on the 48-hour grid). */
function request(day: string, windows: number): BackfillRequest {
  return { ...backfillWindows(day, windows), locations: fx.locations };
}

const NAME_BY_PATH = new Map(Object.values(ENDPOINTS).map((e) => [e.path, e.name]));

/** The simulator's own counts as `endpoint|status` → calls, endpoints by their logical name. */
function simulatorCalls(stats: SimulatorStats): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [id, statuses] of Object.entries(stats.byEndpointStatus)) {
    const path = SIMULATOR_ENDPOINTS.find((e) => e.id === id)?.path;
    const name = path === undefined ? id : (NAME_BY_PATH.get(path) ?? id);
    for (const [status, n] of Object.entries(statuses)) {
      out[`${name}|${status}`] = (out[`${name}|${status}`] ?? 0) + n;
    }
  }
  return out;
}

/** Fact rows by dataset, every fact table of each. */
async function factRows(app: App): Promise<Record<string, number>> {
  const { rows } = await sql<{ pollen: number; weather: number }>`
    select
      (select count(*) from envdata.pollen_hourly)::int
        + (select count(*) from envdata.pollen_species_hourly)::int as pollen,
      (select count(*) from envdata.weather_hourly)::int as weather`.execute(app.db);
  return { ...rows[0]! };
}

/** Records in `envdata.quarantine` by dataset (the source of history records is `<dataset>_history`). */
async function quarantined(app: App): Promise<Record<string, number>> {
  const { rows } = await sql<{ dataset: string; n: number }>`
    select split_part(source, '_', 1) as dataset, count(*)::int as n
    from envdata.quarantine group by 1`.execute(app.db);
  return Object.fromEntries(rows.map((r) => [r.dataset, r.n]));
}

/** Chunks of runs that have not ended, by status: what `envdata_chunks` reports. */
async function openChunks(app: App): Promise<Record<string, number>> {
  const { rows } = await sql<{ status: string; n: number }>`
    select c.status, count(*)::int as n from envdata.chunk c
    where c.run_id in (select run_id from envdata.run
      where status not in ('done', 'failed', 'stopped', 'cancelled'))
    group by c.status`.execute(app.db);
  const all = { pending: 0, queued: 0, running: 0, done: 0, failed: 0, split: 0 };
  return { ...all, ...Object.fromEntries(rows.map((r) => [r.status, r.n])) };
}

const minus = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]));

beforeEach(async () => {
  const queue = fx.app.queues.queue(QUEUE_NAMES.ingest);
  await queue.obliterate({ force: true });
  await queue.removeRateLimitKey();
  fx.simulator.clearFaults();
  fx.simulator.setOptions({ rateLimit: null });
  fx.simulator.resetLimits();
  fx.simulator.resetStats();
});

afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
});

describe('GET /metrics after a backfill against the simulator', needsTools('promtool'), () => {
  it('is valid Prometheus text whose counters equal the simulator’s counts and the ledger', async () => {
    // The first hour of every weather answer comes twice with different values: both records
    // are quarantined; no re-fetch, so each record is set aside once.
    fx.simulator.setFaults('weather-history:conflict@100%');
    const app = metricsApp({ ingest: { ...fx.app.config.ingest, refetchAttempts: 0 } });
    await serveMetrics(app);
    const rowsBefore = await factRows(app);
    const quarantineBefore = await quarantined(app);

    const start = await startBackfill(app, request('2024-06-02', 2));
    expect(start.estimate.chunks).toBe(8);
    // Planned and dispatched, no worker yet: the gauges are the ledger's and the queue's.
    const planned = await scrape(app);
    const ledger = await openChunks(app);
    expect(samplesBy(planned, 'envdata_chunks', ['state'])).toEqual(ledger);
    expect(ledger.queued! + ledger.pending!).toBe(8);
    const counts = await app.queues
      .queue(QUEUE_NAMES.ingest)
      .getJobCounts(...(QUEUE_JOB_STATES as readonly string[] as 'waiting'[]));
    expect(samplesBy(planned, 'envdata_queue_jobs', ['state'])).toEqual(counts);
    expect(counts.waiting! + counts.prioritized!).toBe(8);
    expect(samplesBy(planned, 'envdata_workers_alive', [])).toEqual({ '': 0 });

    await app.start({ worker: { concurrency: 4 } });
    const progress = await waitForRun(app.db, start.runId!);
    expect(progress).toMatchObject({ done: 8, failed: 0 });
    const samples = await scrape(app);
    // The worker of this app, alive by its heartbeat.
    expect(samplesBy(samples, 'envdata_workers_alive', [])).toEqual({ '': 1 });

    const calls = samplesBy(samples, 'envdata_api_calls_total', ['endpoint', 'status']);
    expect(calls).toEqual(simulatorCalls(fx.simulator.stats()));
    expect(calls).toEqual({ 'pollen_history|200': 4, 'weather_history|200': 4 });

    const landed = samplesBy(samples, 'envdata_rows_landed_total', ['dataset']);
    expect(landed).toEqual(minus(await factRows(app), rowsBefore));
    expect(landed.weather).toBeGreaterThan(0);
    expect(landed.pollen).toBeGreaterThan(0);

    const setAside = samplesBy(samples, 'envdata_records_quarantined_total', ['dataset']);
    expect(setAside).toEqual({ pollen: 0, ...minus(await quarantined(app), quarantineBefore) });
    expect(setAside.weather).toBeGreaterThan(0);

    // The run ended: its chunks are no longer work in hand.
    expect(samplesBy(samples, 'envdata_chunks', ['state'])).toEqual(await openChunks(app));
    expect(
      samplesBy(samples, 'envdata_chunk_duration_seconds_count', ['dataset', 'outcome']),
    ).toEqual({ 'pollen|landed': 4, 'weather|landed': 4 });
    expect(samplesBy(samples, 'envdata_rate_limit_waits_total', ['reason'])).toEqual({});

    // Freshness as `envdata status` reads it: every location lags since June 2024.
    const stale = samplesBy(samples, 'envdata_locations_stale', ['dataset']);
    expect(stale).toEqual({ pollen: 2, weather: 2 });
    const lag = samplesBy(samples, 'envdata_freshness_lag_seconds', ['dataset']);
    const { rows } = await sql<{ dataset: string; lag: number }>`
      select c.dataset, max(extract(epoch from now() - upper(c.landed)))::float8 as lag
      from envdata.coverage c join envdata.location l using (location_id)
      where l.retired_at is null group by c.dataset`.execute(app.db);
    for (const r of rows) {
      expect(lag[r.dataset]).toBeGreaterThan(r.lag - 60);
      expect(lag[r.dataset]).toBeLessThanOrEqual(r.lag);
    }
  });

  it('counts 429s by status, as throttled waits, and in envdata.api_call_minute', async () => {
    await sql`delete from envdata.api_call_minute`.execute(fx.app.db);
    fx.simulator.setOptions({ rateLimit: { max: 5, durationMs: 1_000, retryAfter: 'sometimes' } });
    const app = metricsApp();
    await serveMetrics(app);
    await app.start({ worker: { concurrency: 4 } });
    const start = await startBackfill(app, request('2024-06-08', 3));
    const progress = await waitForRun(app.db, start.runId!, { timeoutMs: 50_000 });
    expect(progress).toMatchObject({ status: 'done', done: 12, failed: 0 });

    const stats = fx.simulator.stats();
    const throttled = stats.byStatus['429'] ?? 0;
    expect(throttled).toBeGreaterThan(0);
    const samples = await scrape(app);
    const calls = samplesBy(samples, 'envdata_api_calls_total', ['endpoint', 'status']);
    expect(calls).toEqual(simulatorCalls(stats));
    expect(Object.keys(calls).some((k) => k.endsWith('|429'))).toBe(true);
    // Every 429 put its job back to wait out the pause; the call budget never bound.
    expect(samplesBy(samples, 'envdata_rate_limit_waits_total', ['reason'])).toEqual({
      throttled,
    });
    const outcomes = samplesBy(samples, 'envdata_chunk_duration_seconds_count', ['outcome']);
    expect(
      samples
        .filter((s) => s.name === 'envdata_chunk_duration_seconds_count')
        .filter((s) => s.labels.outcome === 'throttled')
        .reduce((n, s) => n + s.value, 0),
    ).toBe(throttled);
    expect(Object.keys(outcomes).sort()).toEqual(['landed', 'throttled']);

    // The worker adds its counts in the background, while it runs.
    const expected = { calls: stats.total, throttled, failed: 0 };
    const minutes = async () => {
      const { rows } = await sql<{ calls: number; throttled: number; failed: number }>`
        select coalesce(sum(calls), 0)::int as calls, coalesce(sum(throttled), 0)::int as throttled,
          coalesce(sum(failed), 0)::int as failed from envdata.api_call_minute`.execute(fx.app.db);
      return rows[0]!;
    };
    await pollUntil(
      async () => {
        const sums = await minutes();
        return sums.calls === expected.calls ? { done: sums } : { last: sums };
      },
      { timeoutMs: 30_000, describe: (last) => `api_call_minute: ${JSON.stringify(last)}` },
    );
    expect(await minutes()).toEqual(expected);
    const { rows: byEndpoint } = await sql<{ endpoint: string; calls: number }>`
      select endpoint, sum(calls)::int as calls from envdata.api_call_minute group by endpoint
    `.execute(fx.app.db);
    expect(Object.fromEntries(byEndpoint.map((r) => [r.endpoint, r.calls]))).toEqual({
      pollen_history: Object.entries(simulatorCalls(stats))
        .filter(([k]) => k.startsWith('pollen_history|'))
        .reduce((n, [, v]) => n + v, 0),
      weather_history: Object.entries(simulatorCalls(stats))
        .filter(([k]) => k.startsWith('weather_history|'))
        .reduce((n, [, v]) => n + v, 0),
    });
    // The last flush, on stop, adds nothing twice.
    await app.stop();
    expect(await minutes()).toEqual(expected);
  });
});

describe('GET /metrics with a quota and a budget', needsTools('promtool'), () => {
  it('reports the calls used and the cap of each window, the month capped by the budget', async () => {
    const quota = { ...fx.app.config.quota, perDay: 100, syncReserve: 0, budgetPerMonth: 30 };
    const app = metricsApp({ quota });
    await serveMetrics(app);
    const before = samplesBy(await scrape(app), 'envdata_quota_used_calls', ['window']);
    expect(samplesBy(await scrape(app), 'envdata_quota_limit_calls', ['window'])).toEqual({
      day: 100,
      month: 30,
    });
    await app.start({ worker: { concurrency: 4 } });
    const start = await startBackfill(app, request('2024-06-14', 2));
    expect(await waitForRun(app.db, start.runId!)).toMatchObject({ done: 8, failed: 0 });
    const used = samplesBy(await scrape(app), 'envdata_quota_used_calls', ['window']);
    // The shared counters of today and this month: 8 calls more than before the run.
    expect(used).toEqual({ day: (before.day ?? 0) + 8, month: (before.month ?? 0) + 8 });
  });
});

describe('GET /metrics under a call budget', needsTools('promtool'), () => {
  it('counts the jobs that waited for the budget, each a chunk job ended `budget`', async () => {
    // BullMQ's limiter takes the tightest rule (100/s); the 3 calls per 3 s are the call budget's.
    // 8 calls cannot fit in two fixed windows of 3, wherever the run starts in one: some wait.
    const rules = parseRateLimits('100/s,3/3s') as RateLimitRule[];
    const app = metricsApp({ rateLimits: rules });
    await serveMetrics(app);
    await app.start({ worker: { concurrency: 4 } });
    const start = await startBackfill(app, request('2024-06-20', 2));
    const progress = await waitForRun(app.db, start.runId!, { timeoutMs: 50_000 });
    expect(progress).toMatchObject({ status: 'done', done: 8, failed: 0 });

    const samples = await scrape(app);
    const waits = samplesBy(samples, 'envdata_rate_limit_waits_total', ['reason']);
    expect(waits.budget).toBeGreaterThan(0);
    expect(waits.throttled).toBeUndefined();
    const ended = samplesBy(samples, 'envdata_chunk_duration_seconds_count', [
      'dataset',
      'outcome',
    ]);
    expect((ended['pollen|budget'] ?? 0) + (ended['weather|budget'] ?? 0)).toBe(waits.budget);
    expect(samplesBy(samples, 'envdata_api_calls_total', ['endpoint', 'status'])).toEqual(
      simulatorCalls(fx.simulator.stats()),
    );
    expect(fx.simulator.stats().total).toBe(8);
  });
});

describe('GET /metrics while Postgres and the queue do not answer', needsTools('promtool'), () => {
  it('still answers with every other metric, and says so once per source', async () => {
    const { logger, lines } = captureLogger();
    const app = metricsApp(
      { databaseUrl: 'postgres://envdata@127.0.0.1:1/nowhere', redisUrl: 'redis://127.0.0.1:1' },
      { logger, metrics: { collectTtlMs: 0, collectTimeoutMs: 500 } },
    );
    await serveMetrics(app);
    for (let i = 0; i < 2; i++) {
      const samples = await scrape(app);
      const names = new Set(samples.map((s) => s.name));
      expect(names.has('nodejs_version_info')).toBe(true);
      for (const gauge of [
        'envdata_chunks',
        'envdata_freshness_lag_seconds',
        'envdata_locations_stale',
      ]) {
        expect(names.has(gauge)).toBe(false);
      }
    }
    const failed = lines
      .map((l) => JSON.parse(l) as { msg: string; source?: string })
      .filter((l) => l.msg.startsWith('metrics source failed'));
    expect(failed.filter((l) => l.source === 'chunks')).toHaveLength(1);
    expect(failed.filter((l) => l.source === 'freshness')).toHaveLength(1);
    expect(failed.filter((l) => l.source === 'queue jobs').length).toBeLessThanOrEqual(1);
  });
});
