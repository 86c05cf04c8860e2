/**
 * `npm run bench:backfill` — the backfill engine end to end on each queue backend
 * (ENVDATA_QUEUE_BACKEND: BullMQ on Redis, or on Postgres in schema `envdata_queue`), side by
 * side, with baselines measured in the same run:
 *
 * 1. rows/s of a backfill against the simulator (a separate process, no rate limit), as a ratio of
 *    this machine's ceilings (`lib/ceiling.ts`, measured once: they do not depend on the queue):
 *    the landed rows written again into tables identical to the fact tables by a server-side
 *    `INSERT … SELECT` (target ≥ 50 %) and by a binary `COPY … FROM STDIN`; and postgres/redis;
 *    the worker's CPU milliseconds per chunk (one call) and, from it, the calls per second one
 *    core sustains — for sizing worker hosts;
 * 2. with the simulator limited to R calls/s and envdata's ENVDATA_RATE_LIMIT set to R: the call
 *    rate achieved in steady state as the simulator counted it in its rate windows (target ≥ 97 %
 *    of R), the 429s provoked (target 0), the pacer's measured margin and the worker's CPU at
 *    that rate; the same with ENVDATA_QUOTA and ENVDATA_SYNC_RESERVE set, and what one quota
 *    check costs (µs, and checks per second one core sustains); each with the machine's load;
 * 3. a plan of 1,000 locations × 30 years of weather: planning time, ledger size, and what a full
 *    queue takes: Redis memory of its keys (target ≤ 50 MB), or on Postgres the size of the
 *    tables of `envdata_queue` (on disk; not judged);
 * 4. the ledger of a finished 200,000-chunk plan: bytes per covered location-year with every done
 *    chunk kept (before coverage) and with coverage ranges and chunks folded (now). Once: no queue.
 * 5. what OpenTelemetry traces cost (src/tracing/): rows/s of backfills with tracing off, on at
 *    100 % sampling and on at 10 % (`parentbased_traceidratio`, 0.1), alternating, exporting over
 *    OTLP/HTTP to a receiver on loopback; ratios to off (targets: ≥ 95 % at 100 %, ≥ 98 % at 10 %).
 *
 * Each part runs on every backend in turn, back to back, so that the figures set side by side
 * meet the same machine (it is shared: load moves within minutes). Each backend gets a database
 * of its own (on `postgres` it holds the queue too) and, on `redis`, a key prefix of its own; both
 * are removed afterwards, on failure and on Ctrl-C too. A measurement, not a test: it exits 0
 * whether the targets are met or not, and prints misses last.
 *
 * Flags (`-- --help`): --backends redis,postgres (default both; one alone measures just it; an
 * unknown one exits 2), --locations N (8), --days N (240), --rate R (20), --rate-seconds S (20:
 * R × S chunks), --concurrency N (32), --parts 1,2,3,4 (default all: `--parts 2` measures the rate
 * limit alone).
 *
 * @example npm run bench:backfill -- --backends postgres --rate 20 --rate-seconds 20
 * @example npm run bench:backfill -- --parts 2 --rate-seconds 30
 */
import { performance } from 'node:perf_hooks';
import { measureLedgerSize, type LedgerSize } from './ledger-size.js';
import { openBackendRun, type BackendFigures, type BackendRun } from './lib/backend-run.js';
import { readBackfillOptions } from './lib/backfill-options.js';
import { printBackfillReport } from './lib/backfill-report.js';
import {
  benchDatabase,
  checkpoint,
  DEFAULT_SERVER_URL,
  type BenchDatabase,
} from './lib/bench-database.js';
import {
  createCeilingTables,
  dropCeilingTables,
  measureCeilings,
  type Ceilings,
} from './lib/ceiling.js';
import { measureEndToEnd, type EndToEnd } from './lib/end-to-end-run.js';
import { measureFullQueuePlan } from './lib/full-queue-plan.js';
import { measureQuotaCheck } from './lib/quota-check-cost.js';
import { measureRateLimited } from './lib/rate-limited-run.js';
import { measureShapeCost, type ShapeCost } from './lib/shape-cost.js';
import { measureTracingCost, type TracingCost } from './lib/tracing-cost.js';

// The bench is an entry point: the one place here that reads the environment.
const options = readBackfillOptions(process.argv.slice(2));
const SERVER = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
const REDIS = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The bench's databases, for Ctrl-C. */
const databases: BenchDatabase[] = [];
let interrupted: NodeJS.Signals | undefined;

function stopIfInterrupted(): void {
  if (interrupted) throw new Error(`interrupted by ${interrupted}`);
}

// Ctrl-C drops the bench's databases: whatever runs in them fails at once, and the failure
// cleans up the rest (queue keys, apps, simulators). A second one leaves at once.
const onSignal = (signal: NodeJS.Signals) => {
  if (interrupted) process.exit(130);
  interrupted = signal;
  console.error(`\n${signal}: stopping and dropping the bench databases (again to leave at once)`);
  for (const database of databases) void database.drop().catch(() => undefined);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

/** Runs one part on every backend in turn, back to back, so they meet the same machine. */
async function onEach<T>(
  runs: readonly BackendRun[],
  what: string,
  part: (run: BackendRun) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  for (const run of runs) {
    stopIfInterrupted();
    console.error(`bench:backfill: ${what}, ${run.backend} queue`);
    results.push(await part(run));
  }
  return results;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const runs: BackendRun[] = [];
  const parts = new Set(options.parts);
  try {
    for (const backend of options.backends) {
      stopIfInterrupted();
      const database = benchDatabase(SERVER);
      databases.push(database);
      runs.push(await openBackendRun(backend, database, { ...options, redisUrl: REDIS }));
    }
    let endToEnd: EndToEnd[] | undefined;
    let shapeCost: ShapeCost[] | undefined;
    let ceilings: Ceilings | undefined;
    if (parts.has(1)) {
      endToEnd = await onEach(runs, '1. end to end', async (run) => {
        // Without the previous run's dirty buffers.
        await checkpoint(run.app.db);
        return measureEndToEnd(run.target, run.locations, options);
      });
      shapeCost = await onEach(runs, "1. the answers' shapes", (run) =>
        measureShapeCost(run.app.db, run.locations),
      );
      // The ceilings do not depend on the queue: once, on the first backend's landed rows.
      stopIfInterrupted();
      console.error('bench:backfill: the ceilings');
      const first = runs[0]!;
      await createCeilingTables(first.app.db, endToEnd[0]!.from, endToEnd[0]!.to);
      ceilings = await measureCeilings(first.app.db, first.target.databaseUrl);
      await dropCeilingTables(first.app.db);
    }
    const rate = {
      rate: options.rate,
      seconds: options.rateSeconds,
      concurrency: options.concurrency,
    };
    const rateLimited = parts.has(2)
      ? await onEach(runs, '2. rate limited', (run) =>
          measureRateLimited(run.target, run.locations, { ...rate, withQuota: false }),
        )
      : undefined;
    const rateLimitedQuota = parts.has(2)
      ? await onEach(runs, '2. rate limited, with a quota and a reserve', (run) =>
          measureRateLimited(run.target, run.locations, { ...rate, withQuota: true }),
        )
      : undefined;
    const quotaCheck = parts.has(2)
      ? await onEach(runs, "2. the quota check's cost", (run) => measureQuotaCheck(run.target))
      : undefined;
    const fullQueue = parts.has(3)
      ? await onEach(runs, '3. full queue', (run) => measureFullQueuePlan(run.target))
      : undefined;
    const tracing: TracingCost[] | undefined = parts.has(5)
      ? await onEach(runs, '5. tracing off, on at 100 % and at 10 %', (run) =>
          measureTracingCost(run.target, run.locations, {
            days: options.traceDays,
            concurrency: options.concurrency,
            rounds: options.traceRounds,
          }),
        )
      : undefined;
    let ledger: LedgerSize | undefined;
    if (parts.has(4)) {
      stopIfInterrupted();
      console.error('bench:backfill: 4. the ledger of a finished plan');
      ledger = await measureLedgerSize(SERVER);
    }
    stopIfInterrupted();
    const backends: BackendFigures[] = runs.map((run, i) => ({
      backend: run.backend,
      ...(endToEnd && { endToEnd: endToEnd[i]! }),
      ...(shapeCost && { shapeCost: shapeCost[i]! }),
      ...(rateLimited && { rateLimited: rateLimited[i]! }),
      ...(rateLimitedQuota && { rateLimitedQuota: rateLimitedQuota[i]! }),
      ...(quotaCheck && { quotaCheck: quotaCheck[i]! }),
      ...(fullQueue && { fullQueue: fullQueue[i]! }),
    }));
    printBackfillReport({
      options,
      backends,
      ...(ceilings && { ceilings }),
      ...(ledger && { ledger }),
      ...(tracing && {
        tracing: runs.map((run, i) => ({ backend: run.backend, cost: tracing[i]! })),
      }),
      seconds: (performance.now() - t0) / 1_000,
    });
  } finally {
    for (const run of runs) await run.close();
  }
}

main().catch((error: unknown) => {
  if (interrupted) {
    console.error(`stopped by ${interrupted}; the bench databases and queue keys are removed`);
    process.exitCode = 130;
    return;
  }
  console.error(error);
  process.exitCode = 1;
});
