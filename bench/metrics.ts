/**
 * `npm run bench:metrics` — what metrics cost the worker's hot path: end-to-end rows/s of
 * backfills against the simulator (a process of its own, no rate limit) with metrics, as
 * `envdata worker --metrics-port` runs (observers on: Prometheus counters and histogram, the
 * per-minute call counts flushed to `envdata.api_call_minute`; `/metrics` served and scraped
 * every `--scrape-ms`, 15 times more often than a usual 15 s scrape by default), and without
 * (the app's observers disabled: nothing counted, no server). Both in the same run, alternating
 * in ABBA order round by round so that a drift of the shared machine falls on both; each run
 * backfills days of its own, so every run lands new rows.
 *
 * Prints each run, then rows/s of each side (all their rows over all their seconds) and the
 * ratio with/without (target: within 3 %). A short warm-up run comes first, not counted. A
 * measurement, not a test: it exits 0 either way.
 *
 * Flags (`-- --help`): --backend redis|postgres (redis), --locations N (8), --days N (120 per run),
 * --rounds N (6: 2 × N runs; runs of a few seconds each swing ±30 % on a shared machine,
 * so fewer and shorter runs measure the machine, not the metrics), --concurrency N (32), --scrape-ms N (1000).
 *
 * @example npm run bench:metrics -- --rounds 4 --days 60
 */
import { parseArgs } from 'node:util';
import { QUEUE_BACKENDS, type QueueBackend } from '../src/config/config.js';
import { openBackendRun, type BackendRun } from './lib/backend-run.js';
import { benchDatabase, checkpoint, DEFAULT_SERVER_URL } from './lib/bench-database.js';
import { measureMetricsRun, type MetricsRun } from './lib/metrics-run.js';
import { measureObserverCost } from './lib/observer-cost.js';
import { startSimulatorProcess } from './lib/simulator-process.js';

const USAGE = `usage: npm run bench:metrics -- [options]
  --backend NAME       queue backend: ${QUEUE_BACKENDS.join(' or ')} (default redis)
  --locations N        locations of each backfill (default 8)
  --days N             days of pollen and weather per backfill (default 120)
  --rounds N           rounds of one run with metrics and one without (default 6)
  --concurrency N      ingest worker concurrency (default 32)
  --scrape-ms N        how often /metrics is scraped during a run with metrics (default 1000)
Servers: BENCH_DATABASE_URL (a superuser URL), BENCH_REDIS_URL (redis backend only).`;

function usageError(message: string): never {
  console.error(`bench:metrics: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function wholeNumber(name: string, raw: string, max: number): number {
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) {
    usageError(`--${name} must be a whole number from 1 to ${max}, got "${raw}"`);
  }
  return n;
}

function readOptions(argv: readonly string[]) {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        backend: { type: 'string', default: 'redis' },
        locations: { type: 'string', default: '8' },
        days: { type: 'string', default: '120' },
        rounds: { type: 'string', default: '6' },
        concurrency: { type: 'string', default: '32' },
        'scrape-ms': { type: 'string', default: '1000' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    usageError((error as Error).message);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (!(QUEUE_BACKENDS as readonly string[]).includes(values.backend)) {
    usageError(`--backend must be ${QUEUE_BACKENDS.join(' or ')}, got "${values.backend}"`);
  }
  return {
    backend: values.backend as QueueBackend,
    locations: wholeNumber('locations', values.locations, 1_000),
    days: wholeNumber('days', values.days, 365),
    rounds: wholeNumber('rounds', values.rounds, 20),
    concurrency: wholeNumber('concurrency', values.concurrency, 1_000),
    scrapeMs: wholeNumber('scrape-ms', values['scrape-ms'], 60_000),
  };
}

// The bench is an entry point: the one place here that reads the environment.
const options = readOptions(process.argv.slice(2));
const SERVER = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
const REDIS = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DAY_MS = 86_400_000;

/** Rows/s of runs taken together: all their rows over all their seconds. */
function rate(runs: readonly MetricsRun[]): number {
  const rows = runs.reduce((n, r) => n + r.rows, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  return rows / seconds;
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function main(): Promise<void> {
  const database = benchDatabase(SERVER);
  let run: BackendRun | undefined;
  const simulator = await startSimulatorProcess();
  const stop = async () => {
    await run?.close().catch(() => undefined);
    await database.drop().catch(() => undefined);
    await simulator.stop();
  };
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`\n${signal}: stopping and dropping the bench database (again to leave at once)`);
    void database.drop().catch(() => undefined);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    run = await openBackendRun(options.backend, database, {
      redisUrl: REDIS,
      locations: options.locations,
    });
    const runs: MetricsRun[] = [];
    // Runs go back in time from 2024-07-01, `days` each: every run lands days of its own.
    let to = Date.UTC(2024, 6, 1);
    // A warm-up, not counted: the year's partitions, the JIT, the connections' first queries.
    console.error('bench:metrics: warming up');
    await measureMetricsRun(run.target, run.locations, {
      metrics: true,
      baseUrl: simulator.url,
      to: new Date(to),
      days: Math.min(options.days, 8),
      concurrency: options.concurrency,
      scrapeMs: options.scrapeMs,
    });
    to -= Math.min(options.days, 8) * DAY_MS;
    for (let round = 0; round < options.rounds; round++) {
      // ABBA: without, with, with, without, …
      const order = round % 2 === 0 ? [false, true] : [true, false];
      for (const metrics of order) {
        if (interrupted) throw new Error('interrupted');
        await checkpoint(run.app.db);
        const result = await measureMetricsRun(run.target, run.locations, {
          metrics,
          baseUrl: simulator.url,
          to: new Date(to),
          days: options.days,
          concurrency: options.concurrency,
          scrapeMs: options.scrapeMs,
        });
        to -= options.days * DAY_MS;
        runs.push(result);
        console.error(
          `bench:metrics: round ${round + 1}, ${metrics ? 'with   ' : 'without'}: ` +
            `${fmt(result.rows)} rows, ${result.chunks} chunks in ${fmt(result.seconds, 2)} s = ` +
            `${fmt(result.rows / result.seconds)} rows/s (${result.status}` +
            `${metrics ? `, ${result.scrapes} scrapes` : ''})`,
        );
      }
    }
    const withMetrics = rate(runs.filter((r) => r.metrics));
    const without = rate(runs.filter((r) => !r.metrics));
    const ratio = withMetrics / without;
    // Each round's own ratio: the two runs of a round meet the same load, more or less.
    const pairs: number[] = [];
    for (let i = 0; i + 1 < runs.length; i += 2) {
      const [a, b] = [runs[i]!, runs[i + 1]!];
      const w = a.metrics ? a : b;
      const wo = a.metrics ? b : a;
      pairs.push(w.rows / w.seconds / (wo.rows / wo.seconds));
    }
    const medianPair = [...pairs].sort((x, y) => x - y)[Math.floor((pairs.length - 1) / 2)]!;
    // The hot path's share, free of the machine's noise: the reports' CPU per chunk against the
    // worker's CPU per chunk without metrics; and a scrape's CPU every 15 s.
    const cost = await measureObserverCost(run.app.db);
    const plain = runs.filter((r) => !r.metrics);
    const cpuPerChunkMicros =
      (plain.reduce((n, r) => n + r.cpuSeconds, 0) * 1e6) / plain.reduce((n, r) => n + r.chunks, 0);
    console.log(
      [
        `bench:metrics — ${options.backend} queue, ${options.locations} locations × ${options.days} days per run, ` +
          `concurrency ${options.concurrency}, ${options.rounds} rounds (ABBA), scrape every ${options.scrapeMs} ms`,
        `  without metrics: ${fmt(without)} rows/s`,
        `  with metrics:    ${fmt(withMetrics)} rows/s`,
        `  ratio with/without: ${fmt(ratio, 3)} (${fmt((ratio - 1) * 100, 1)} %; target within ±3 %: ${
          Math.abs(ratio - 1) <= 0.03 ? 'met' : 'MISSED'
        }); per round: ${pairs.map((p) => fmt(p, 3)).join(', ')} (median ${fmt(medianPair, 3)})`,
        `  hot path: the reports of one chunk take ${fmt(cost.perChunkMicros, 2)} µs of CPU, ` +
          `${fmt((cost.perChunkMicros / cpuPerChunkMicros) * 100, 3)} % of the worker's ` +
          `${fmt(cpuPerChunkMicros)} µs per chunk without metrics`,
        `  a scrape renders in ${fmt(cost.scrapeMillis, 2)} ms (gauges cached): ` +
          `${fmt((cost.scrapeMillis / 15_000) * 100, 3)} % of a core at one scrape per 15 s`,
        ...(runs.some((r) => r.status !== 'done')
          ? ['  note: some runs did not end `done`: the figures are not comparable']
          : []),
      ].join('\n'),
    );
  } finally {
    await stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
