/**
 * `npm run bench:console` — the operations console's JSON API at the scale of a large
 * installation: a scratch database filled in SQL (`lib/console-fill.ts`) with 1,000 locations ×
 * 30 years of pollen and weather coverage, holes of every kind, and runs with chunks in every
 * state; then `envdata serve`'s routes on a free port, and for each endpoint the server time of
 * sequential requests over real HTTP (median and p95 of --requests, after a warm-up), against the
 * 300 ms target, beside `/healthz` measured the same way in the same run (the baseline: what
 * HTTP alone costs here).
 *
 * A measurement, not a test: it exits 0 whether the targets are met or not, and names misses.
 * The database is dropped afterwards, on failure and on Ctrl-C too.
 *
 * Flags: --locations N (1000), --years N (30), --requests N (20).
 *
 * @example npm run bench:console -- --requests 30
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.js';
import { serveRoutes } from '../src/cli/serve-routes.js';
import { configFromDefaults } from '../src/config/load-config.js';
import { ensureDatabase } from '../src/warehouse/ensure-database.js';
import { migrateToLatest } from '../src/warehouse/migrate-to-latest.js';
import { benchDatabase, DEFAULT_SERVER_URL } from './lib/bench-database.js';
import { fillConsoleLedger } from './lib/console-fill.js';

const TARGET_MS = 300;
const WARM_UP = 3;

const { values } = parseArgs({
  options: {
    locations: { type: 'string', default: '1000' },
    years: { type: 'string', default: '30' },
    requests: { type: 'string', default: '20' },
  },
});
const LOCATIONS = Number(values.locations);
const YEARS = Number(values.years);
const REQUESTS = Number(values.requests);
for (const [flag, n] of Object.entries({ LOCATIONS, YEARS, REQUESTS })) {
  if (!Number.isSafeInteger(n) || n < 1) {
    process.stderr.write(`bench:console: --${flag.toLowerCase()} must be a whole number ≥ 1\n`);
    process.exit(2);
  }
}
// The bench is an entry point: the one place here that reads the environment.
const SERVER = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;

const bench = benchDatabase(SERVER);
const onSignal = () => void bench.drop().finally(() => process.exit(130));
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);

/** Server time of `path`: each request's time to its last byte, over a kept-alive connection. */
async function measure(url: string): Promise<{ median: number; p95: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < WARM_UP + REQUESTS; i++) {
    const started = performance.now();
    const response = await fetch(url);
    const body = await response.arrayBuffer();
    const elapsed = performance.now() - started;
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    bytes = body.byteLength;
    if (i >= WARM_UP) times.push(elapsed);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!;
  return { median: at(0.5), p95: at(0.95), bytes };
}

try {
  await ensureDatabase(bench.url);
  const config = configFromDefaults({
    DATABASE_URL: bench.url,
    ENVDATA_QUEUE_BACKEND: 'postgres',
    LOG_LEVEL: 'warn',
  });
  const app = createApp(config);
  try {
    await migrateToLatest(app.db, app.logger);
    const filling = performance.now();
    const fill = await fillConsoleLedger(app.db, {
      locations: LOCATIONS,
      years: YEARS,
      runs: 30,
      chunksPerRun: 4_000,
    });
    process.stdout.write(
      `filled ${bench.name} in ${((performance.now() - filling) / 1000).toFixed(1)} s: ` +
        `${fill.locations} locations × ${fill.years} years × 2 datasets, ${fill.holes} holes, ` +
        `${fill.runs} runs, ${fill.chunks} chunks\n\n`,
    );
    const serve = { host: '127.0.0.1', port: 0 };
    await app.start({ http: { ...serve, routes: serveRoutes(app, serve) } });
    const base = app.http!.url;
    const endpoints: [string, string][] = [
      ['/healthz (baseline)', '/healthz'],
      ['runs page: /api/runs', '/api/runs'],
      ['one run: /api/runs/30', '/api/runs/30'],
      [
        'coverage, one page (50 locations × 360 months)',
        '/api/coverage?dataset=weather&bucket=month&page=1&pageSize=50',
      ],
      [
        'coverage, last page (50 × 360 months, pollen)',
        `/api/coverage?dataset=pollen&bucket=month&page=${Math.ceil(LOCATIONS / 50)}&pageSize=50`,
      ],
      [
        `coverage, aggregated whole (${LOCATIONS} locations × ${YEARS} years)`,
        `/api/coverage?dataset=weather&bucket=year&page=1&pageSize=${Math.min(1000, LOCATIONS)}`,
      ],
      ['freshness: /api/freshness', '/api/freshness'],
      ['rate limit: /api/rate-limit', '/api/rate-limit'],
    ];
    const rows: { name: string; median: number; p95: number; bytes: number }[] = [];
    for (const [name, path] of endpoints) rows.push({ name, ...(await measure(`${base}${path}`)) });
    const baseline = rows[0]!.median;
    const width = Math.max(...rows.map((r) => r.name.length));
    process.stdout.write(
      `${'endpoint'.padEnd(width)}  median ms    p95 ms   × baseline   body KB  target ${TARGET_MS} ms\n`,
    );
    const misses: string[] = [];
    for (const [i, r] of rows.entries()) {
      const judged = i > 0;
      const met = r.p95 <= TARGET_MS;
      if (judged && !met) misses.push(r.name);
      process.stdout.write(
        `${r.name.padEnd(width)}  ${r.median.toFixed(1).padStart(9)}  ${r.p95.toFixed(1).padStart(8)}` +
          `  ${(r.median / baseline).toFixed(1).padStart(11)}  ${(r.bytes / 1024).toFixed(0).padStart(8)}` +
          `  ${judged ? (met ? 'met' : 'MISSED') : '(baseline)'}\n`,
      );
    }
    process.stdout.write(
      `\n${REQUESTS} sequential requests each after ${WARM_UP} warm-up(s); target: p95 ≤ ${TARGET_MS} ms.\n` +
        (misses.length === 0 ? 'every target met\n' : `missed: ${misses.join('; ')}\n`),
    );
  } finally {
    await app.stop();
  }
} finally {
  await bench.drop();
}
