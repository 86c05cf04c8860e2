/**
 * `npm run bench:backfill` — the backfill engine end to end, with baselines measured in the same
 * run:
 *
 * 1. rows/s of a backfill against the simulator (a separate process, no rate limit), as a ratio of
 *    this machine's ceilings (`lib/ceiling.ts`): the landed rows written again into tables
 *    identical to the fact tables by a server-side `INSERT … SELECT` (target ≥ 50 %) and by a
 *    binary `COPY … FROM STDIN`;
 * 2. with the simulator limited to R calls/s and envdata's ENVDATA_RATE_LIMIT set to R: the call
 *    rate achieved (target ≥ 95 % of R) and the 429s provoked (target 0);
 * 3. a plan of 1,000 locations × 30 years of weather: planning time, ledger size, and the Redis
 *    memory of a full queue (target ≤ 50 MB);
 * 4. the ledger of a finished 200,000-chunk plan: bytes per covered location-year with every done
 *    chunk kept (before coverage) and with coverage ranges and chunks folded (now).
 *
 * Flags: --locations N (default 8), --days N (default 240), --rate R (default 20),
 * --rate-seconds S (default 20), --concurrency N (default 32). Uses its own database and queue
 * prefix and removes both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { createApp, type App } from '../src/app.js';
import { configFromDefaults } from '../src/config/load-config.js';
import { createFeeder } from '../src/dispatch/create-feeder.js';
import { insertLocation, toLocation } from '../src/locations/insert-location.js';
import type { Location } from '../src/locations/location.js';
import { runProgress, type RunProgress } from '../src/ledger/run-progress.js';
import { measureLedgerSize } from './ledger-size.js';
import {
  createCeilingTables,
  dropCeilingTables,
  FACT_TABLES,
  measureCeilings,
  sumCeilings,
} from './lib/ceiling.js';
import { fmtInt, fmtPct, fmtSec, rate, verdict } from './lib/report.js';
import { planRun } from '../src/planner/plan-run.js';
import { lastCompleteHourEnd } from '../src/windows/tile-windows.js';
import { DEMO_API_KEY } from '../src/simulator/simulator-options.js';
import { withDatabase } from '../src/warehouse/database-url.js';
import { migrateToLatest } from '../src/warehouse/migrate-to-latest.js';
import type { Database } from '../src/warehouse/schema.js';
import { IngestWorker } from '../src/worker/ingest-worker.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) {
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
}
const num = (name: string, fallback: number) => {
  const v = Number(args.get(name) ?? fallback);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  return v;
};
const LOCATIONS = num('locations', 8);
const DAYS = num('days', 240);
const RATE = num('rate', 20);
const RATE_SECONDS = num('rate-seconds', 20);
const CONCURRENCY = num('concurrency', 32);

const SERVER = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BIN = fileURLToPath(new URL('../bin/envdata.js', import.meta.url));
const CITIES: readonly [string, number, number, string][] = [
  ['Berlin', 52.52, 13.405, 'DE'],
  ['Chicago', 41.8781, -87.6298, 'US'],
  ['Brisbane', -27.4698, 153.0251, 'AU'],
  ['Melbourne', -37.8136, 144.9631, 'AU'],
  ['Madrid', 40.4168, -3.7038, 'ES'],
  ['Toronto', 43.6532, -79.3832, 'CA'],
  ['Auckland', -36.8485, 174.7633, 'NZ'],
  ['Nairobi', -1.2921, 36.8219, 'KE'],
  ['Warsaw', 52.2297, 21.0122, 'PL'],
  ['Denver', 39.7392, -104.9903, 'US'],
];

async function startSimulatorProcess(
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [BIN, 'simulate', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const url = /listening at (http:\/\/\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`simulator did not start: ${line}`);
  return { url, child };
}

async function stopProcess(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

async function waitForRun(db: Kysely<Database>, runId: number): Promise<RunProgress> {
  for (;;) {
    const p = (await runProgress(db, runId))!;
    if (p.status !== 'running') return p;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function appFor(databaseUrl: string, prefix: string, env: Record<string, string>): App {
  return createApp(
    configFromDefaults({
      DATABASE_URL: databaseUrl,
      REDIS_URL: REDIS,
      ENVDATA_QUEUE_PREFIX: prefix,
      ENVDATA_API_KEY: DEMO_API_KEY,
      // The database is dropped with FORCE at the end: idle connections' warnings are noise.
      LOG_LEVEL: 'error',
      ENVDATA_ARCHIVE_RAW: 'true',
      ...env,
    }),
  );
}

async function main(): Promise<void> {
  const name = `envdata_bench_${randomBytes(4).toString('hex')}`;
  const prefix = `envdata-bench-${randomBytes(3).toString('hex')}`;
  const databaseUrl = withDatabase(SERVER, name);
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`create database ${pg.escapeIdentifier(name)}`);
  const redis = new Redis(REDIS);
  const children: ChildProcess[] = [];
  const apps: App[] = [];
  const out: string[] = [];
  try {
    const setup = appFor(databaseUrl, prefix, {});
    apps.push(setup);
    await migrateToLatest(setup.db, setup.logger);
    const locations: Location[] = [];
    for (let i = 0; i < LOCATIONS; i++) {
      const [city, lat, lng, cc] = CITIES[i % CITIES.length]!;
      locations.push(
        await insertLocation(setup.db, {
          name: `${city} ${i}`,
          lat: lat + Math.floor(i / CITIES.length) * 0.01,
          lng,
          countryCode: cc,
          registeredBy: 'coordinates',
        }),
      );
    }

    // 1. End to end, no rate limit.
    const sim = await startSimulatorProcess({});
    children.push(sim.child);
    const e2e = appFor(databaseUrl, prefix, {
      ENVDATA_BASE_URL: sim.url,
      ENVDATA_RATE_LIMIT: 'off',
    });
    apps.push(e2e);
    const end = new Date(Date.UTC(2024, 6, 1));
    const from = new Date(end.getTime() - DAYS * 86_400_000);
    const worker = IngestWorker.start(e2e, { concurrency: CONCURRENCY });
    const t0 = performance.now();
    const { runId, estimate } = await planRun(
      e2e.db,
      {
        kind: 'backfill',
        datasets: ['pollen', 'weather'],
        locations,
        from,
        to: end,
        windowHours: 48,
        now: lastCompleteHourEnd(),
      },
      [],
    );
    await createFeeder(e2e).topUp();
    const done = await waitForRun(e2e.db, runId!);
    const e2eSeconds = (performance.now() - t0) / 1000;
    await worker.close();
    await stopProcess(sim.child);
    await createCeilingTables(e2e.db, from, end);
    const ceilings = await measureCeilings(e2e.db, databaseUrl);
    await dropCeilingTables(e2e.db);
    const e2eRate = rate(done.rows, e2eSeconds);
    const ceiling = sumCeilings(...FACT_TABLES.map((t) => ceilings.insertSelect[t]));
    const copy = sumCeilings(...FACT_TABLES.map((t) => ceilings.copy[t]));
    const ceilingRate = rate(ceiling.rows, ceiling.seconds);
    const copyRate = rate(copy.rows, copy.seconds);
    // 2. Rate limited at R calls/s on both sides.
    const limited = await startSimulatorProcess({
      ENVDATA_SIM_RATE_LIMIT: `${RATE}/s`,
      ENVDATA_SIM_RETRY_AFTER: 'sometimes',
    });
    children.push(limited.child);
    const rateApp = appFor(databaseUrl, `${prefix}-r`, {
      ENVDATA_BASE_URL: limited.url,
      ENVDATA_RATE_LIMIT: `${RATE}/s`,
    });
    apps.push(rateApp);
    const rateEnd = new Date(Date.UTC(2012, 0, 1));
    const rateFrom = new Date(
      rateEnd.getTime() - Math.ceil((RATE * RATE_SECONDS) / (2 * LOCATIONS)) * 2 * 86_400_000,
    );
    const rateWorker = IngestWorker.start(rateApp, { concurrency: CONCURRENCY });
    const r0 = performance.now();
    const rated = await planRun(
      rateApp.db,
      {
        kind: 'backfill',
        datasets: ['weather'],
        locations,
        from: rateFrom,
        to: rateEnd,
        windowHours: 48,
      },
      [],
    );
    await createFeeder(rateApp).topUp();
    const rateDone = await waitForRun(rateApp.db, rated.runId!);
    const rateSeconds = (performance.now() - r0) / 1000;
    await rateWorker.close();
    const stats = (await (await fetch(`${limited.url}/__admin/stats`)).json()) as {
      byStatus: Record<string, number>;
      total: number;
    };
    await stopProcess(limited.child);
    // Steady state: from the first call to the last landing, as the ledger saw them.
    const { rows: span } = await sql<{ seconds: number }>`
      select extract(epoch from max(finished_at) - min(started_at))::float8 as seconds
      from envdata.chunk where run_id = ${rated.runId!}`.execute(rateApp.db);
    const achieved = (stats.total - 1) / span[0]!.seconds;

    // 3. A 1,000-location × 30-year plan.
    const planApp = appFor(databaseUrl, `${prefix}-p`, {});
    apps.push(planApp);
    await sql`
      insert into envdata.location (name, lat, lng, country_code, timezone, pollen_region, registered_by)
      select 'plan ' || g, -60 + (g % 120) + g * 0.0001, -170 + (g % 340) + g * 0.0001, 'DE', 'Europe/Berlin', 'europe', 'coordinates'
      from generate_series(1, 1000) g`.execute(planApp.db);
    const many = await planApp.db
      .selectFrom('location')
      .selectAll()
      .where('name', 'like', 'plan %')
      .execute();
    const p0 = performance.now();
    const big = await planRun(
      planApp.db,
      {
        kind: 'backfill',
        datasets: ['weather'],
        locations: many.map(toLocation),
        from: new Date('1995-01-01T00:00:00Z'),
        to: new Date('2025-01-01T00:00:00Z'),
        windowHours: 48,
      },
      [],
    );
    const planSeconds = (performance.now() - p0) / 1000;
    const { rows: ledger } = await sql<{ bytes: number }>`
      select (pg_total_relation_size('envdata.run_gap') + pg_total_relation_size('envdata.run'))::float8 as bytes`.execute(
      planApp.db,
    );
    const memBefore = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    await createFeeder(planApp).topUp();
    const memAfter = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    const queuedCounts = await planApp.queues
      .queue('ingest')
      .getJobCounts('waiting', 'prioritized');
    const queued = { waiting: (queuedCounts.waiting ?? 0) + (queuedCounts.prioritized ?? 0) };
    await planApp.db
      .updateTable('run')
      .set({ status: 'stopped' })
      .where('run_id', '=', big.runId!)
      .execute();

    // 4. The ledger of a finished 200,000-chunk plan, before and after coverage.
    const size = await measureLedgerSize(SERVER);
    const perYear = (bytes: number) => bytes / size.locationYears;

    const pct = fmtPct;
    out.push(
      '',
      `envdata bench:backfill — ${LOCATIONS} locations, ${DAYS} days of pollen and weather, concurrency ${CONCURRENCY}`,
      '',
      `1. end to end (simulator in its own process, no rate limit)`,
      `   ${estimate.chunks} chunks, ${done.calls} calls, ${done.rows} rows in ${e2eSeconds.toFixed(1)} s = ${Math.round(e2eRate)} rows/s (${(done.calls / e2eSeconds).toFixed(0)} calls/s)`,
      `   ceiling (the landed rows written again into identical tables), server-side INSERT … SELECT: ${ceiling.rows} rows in ${fmtSec(ceiling.seconds)} s = ${fmtInt(ceilingRate)} rows/s`,
      `   ceiling, binary COPY FROM STDIN: ${copy.rows} rows in ${fmtSec(copy.seconds)} s = ${fmtInt(copyRate)} rows/s`,
      `   ratio ${pct(e2eRate / ceilingRate)} of the INSERT … SELECT ceiling (target ≥ 50 %): ${verdict(e2eRate / ceilingRate >= 0.5)}; ${pct(e2eRate / copyRate)} of the COPY ceiling`,
      '',
      `2. rate limited: simulator ${RATE} calls/s per key, ENVDATA_RATE_LIMIT=${RATE}/s`,
      `   ${stats.total} calls; ${achieved.toFixed(1)} calls/s from first call to last landing (${rateSeconds.toFixed(1)} s with start-up) = ${pct(achieved / RATE)} of R (target ≥ 95 %): ${verdict(achieved / RATE >= 0.95)}`,
      `   429s provoked: ${stats.byStatus['429'] ?? 0} (target 0): ${verdict((stats.byStatus['429'] ?? 0) === 0)}; run ${rateDone.status}, ${rateDone.done}/${rateDone.total} chunks`,
      '',
      `3. plan of 1,000 locations × 30 years of weather (48 h windows)`,
      `   ${big.estimate.chunks} chunks planned in ${planSeconds.toFixed(2)} s; ledger after planning ${(ledger[0]!.bytes / 1e6).toFixed(2)} MB`,
      `   Redis with a full queue (${queued.waiting} jobs, ENVDATA_MAX_QUEUED_JOBS): +${((memAfter - memBefore) / 1e6).toFixed(2)} MB (target ≤ 50 MB): ${verdict(memAfter - memBefore <= 50e6)}`,
      '',
      `4. ledger of a finished plan of ${size.chunks} chunks (${Math.round(size.locationYears)} location-years of weather)`,
      `   before (every done chunk kept): ${(size.beforeBytes / 1e6).toFixed(1)} MB = ${Math.round(perYear(size.beforeBytes))} B per covered location-year`,
      `   after (coverage ranges, chunks folded into their run): ${(size.afterBytes / 1e6).toFixed(2)} MB = ${Math.round(perYear(size.afterBytes))} B per covered location-year (${(size.beforeBytes / size.afterBytes).toFixed(0)}× smaller)`,
      `   1,000 locations × 30 years: ${((perYear(size.beforeBytes) * 30_000) / 1e9).toFixed(2)} GB before, ${((perYear(size.afterBytes) * 30_000) / 1e6).toFixed(2)} MB after`,
    );
  } finally {
    for (const app of apps) await app.close();
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `envdata-bench-*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
    redis.disconnect();
    await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
    await admin.end();
  }
  console.log(out.join('\n'));
}

await main();
