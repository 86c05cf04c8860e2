import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { Location } from '../../src/locations/location.js';
import { createFeeder } from '../../src/dispatch/create-feeder.js';
import { planRun } from '../../src/planner/plan-run.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { benchApp, waitForRun, type BenchTarget } from './bench-app.js';
import { startSimulatorProcess } from './simulator-process.js';

const DAY_MS = 86_400_000;

/** A backfill with the simulator and envdata both limited to R calls/s: part 2. */
export interface RateLimited {
  /** Requests the simulator answered, 429s included. */
  readonly calls: number;
  /** 429s the simulator answered: calls envdata's limiter let through too early. */
  readonly throttled: number;
  readonly chunks: number;
  readonly done: number;
  readonly status: string;
  /** From planning to the run's end, the worker already connected. */
  readonly seconds: number;
  /** From the first call to the last landing, as the ledger saw them. */
  readonly spanSeconds: number;
  /**
   * Calls per second in steady state: the slope of the calls made so far over the time of each
   * (least squares over every chunk's `started_at`, taken just before its call).
   */
  readonly steadyRate: number;
  /** CPU time of this process (the worker at R calls/s; the simulator runs in its own). */
  readonly cpuSeconds: number;
}

/**
 * Backfills R × `seconds` 48 h chunks of weather (spread over `locations`, up to 2012) with the
 * simulator allowing R calls/s per key (`Retry-After` sometimes) and ENVDATA_RATE_LIMIT=R/s.
 *
 * Judged on the steady rate, not on calls over the span: with BullMQ's fixed windows the calls
 * come in bursts at each window's start, so the span from the first call to the last landing
 * leaves out most of the last window, and over a 10-window run that alone reads ~10 % high.
 */
export async function measureRateLimited(
  target: BenchTarget,
  locations: readonly Location[],
  options: { readonly rate: number; readonly seconds: number; readonly concurrency: number },
): Promise<RateLimited> {
  const simulator = await startSimulatorProcess({
    ENVDATA_SIM_RATE_LIMIT: `${options.rate}/s`,
    ENVDATA_SIM_RETRY_AFTER: 'sometimes',
  });
  // The limiter's window starts empty: on Redis a queue of its own; on Postgres the database's
  // one queue, idle since part 1.
  const app = benchApp(
    target,
    { ENVDATA_BASE_URL: simulator.url, ENVDATA_RATE_LIMIT: `${options.rate}/s` },
    'r',
  );
  let worker: IngestWorker | undefined;
  try {
    const perLocation = Math.ceil((options.rate * options.seconds) / locations.length);
    const to = new Date(Date.UTC(2012, 0, 1));
    const from = new Date(to.getTime() - perLocation * 2 * DAY_MS);
    worker = IngestWorker.start(app, { concurrency: options.concurrency });
    const feeder = createFeeder(app);
    await worker.worker.waitUntilReady();
    await feeder.topUp();
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const { runId } = await planRun(
      app.db,
      { kind: 'backfill', datasets: ['weather'], locations, from, to, windowHours: 48 },
      [],
    );
    await feeder.topUp();
    const done = await waitForRun(app.db, runId!);
    const seconds = (performance.now() - t0) / 1_000;
    const cpu = process.cpuUsage(cpu0);
    await worker.close();
    const stats = await simulator.stats();
    const { rows } = await sql<{ span: number; slope: number }>`
      select extract(epoch from max(finished_at) - min(started_at))::float8 as span,
        regr_slope(n::float8, extract(epoch from started_at)::float8) as slope
      from (select started_at, finished_at, row_number() over (order by started_at) as n
        from envdata.chunk where run_id = ${runId!} and started_at is not null) c`.execute(app.db);
    return {
      calls: stats.total,
      throttled: stats.byStatus['429'] ?? 0,
      chunks: done.total,
      done: done.done,
      status: done.status,
      seconds,
      spanSeconds: rows[0]?.span ?? 0,
      steadyRate: rows[0]?.slope ?? 0,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    };
  } finally {
    await worker?.close();
    await app.close();
    await simulator.stop();
  }
}
