import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Location } from '../../src/locations/location.js';
import { createFeeder } from '../../src/dispatch/create-feeder.js';
import { planRun } from '../../src/planner/plan-run.js';
import type { RateWindowStats } from '../../src/simulator/stats/simulator-stats.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { benchApp, waitForRun, type BenchTarget } from './bench-app.js';
import { startSimulatorProcess } from './simulator-process.js';

const DAY_MS = 86_400_000;

/** The quota and reserve of the rate-limited run with a quota: room for far more than the run. */
export const BENCH_QUOTA = { quota: '1000000/day,20000000/month', syncReserve: '50000' } as const;

/** A backfill with the simulator and envdata both limited to R calls/s: part 2. */
export interface RateLimited {
  /** Whether ENVDATA_QUOTA and ENVDATA_SYNC_RESERVE were set (`BENCH_QUOTA`). */
  readonly withQuota: boolean;
  /** Requests the simulator answered, 429s included. */
  readonly calls: number;
  /** 429s the simulator answered: calls envdata's pacer let through too early. */
  readonly throttled: number;
  readonly chunks: number;
  readonly done: number;
  readonly status: string;
  /** From planning to the run's end, the worker already connected. */
  readonly seconds: number;
  /**
   * Calls per second in steady state, counted by the simulator in its own rate windows: the
   * calls of every window but the first and the last (partly filled: the run's start and end),
   * over the time from the second window's opening to the last one's.
   */
  readonly steadyRate: number;
  /** The windows `steadyRate` counts, and the most calls one of them let through. */
  readonly steadyWindows: number;
  readonly mostPerWindow: number;
  /** The pacer's margin at the end, measured (ms); `undefined` when the worker had no pacer. */
  readonly marginMs: number | undefined;
  /** CPU time of this process (the worker at R calls/s; the simulator runs in its own). */
  readonly cpuSeconds: number;
  /** `os.loadavg()[0]` when the run ended: the machine's load over about its last minute. */
  readonly load: number;
}

/**
 * The steady rate from the simulator's rate windows of one key (`SimulatorStats.rateWindows`).
 * A window opens with the first call after the last one closed, so windows follow each other at
 * the pace the calls keep: calls counted over the openings they span is the rate the service saw.
 */
export function steadyRateOf(windows: readonly RateWindowStats[]): {
  rate: number;
  windows: number;
  mostPerWindow: number;
} {
  const mostPerWindow = Math.max(0, ...windows.map((w) => w.allowed));
  if (windows.length < 3) return { rate: 0, windows: 0, mostPerWindow };
  const inner = windows.slice(1, -1);
  const calls = inner.reduce((n, w) => n + w.allowed, 0);
  const seconds = (Date.parse(windows.at(-1)!.start) - Date.parse(windows[1]!.start)) / 1_000;
  return { rate: seconds > 0 ? calls / seconds : 0, windows: inner.length, mostPerWindow };
}

/**
 * Backfills R × `seconds` 48 h chunks of weather (spread over `locations`, up to 2012, or 2006
 * with a quota) with the
 * simulator allowing R calls/s per key (`Retry-After` sometimes) and ENVDATA_RATE_LIMIT=R/s;
 * `withQuota` adds ENVDATA_QUOTA and ENVDATA_SYNC_RESERVE (`BENCH_QUOTA`), so every call also
 * goes through the quota gate's shared counters.
 *
 * Judged on the simulator's own count per rate window, not on the ledger's times: the service
 * counts the calls, and a slope over the chunks' `started_at` moves ±3 % with the landing's
 * timing.
 */
export async function measureRateLimited(
  target: BenchTarget,
  locations: readonly Location[],
  options: {
    readonly rate: number;
    readonly seconds: number;
    readonly concurrency: number;
    readonly withQuota: boolean;
  },
): Promise<RateLimited> {
  const simulator = await startSimulatorProcess({
    ENVDATA_SIM_RATE_LIMIT: `${options.rate}/s`,
    ENVDATA_SIM_RETRY_AFTER: 'sometimes',
  });
  // The pacer's slots start empty: on Redis a queue of its own; on Postgres the database's one
  // queue, idle since part 1, and a rule's slots are forgotten two windows after the last.
  const app = benchApp(
    target,
    {
      ENVDATA_BASE_URL: simulator.url,
      ENVDATA_RATE_LIMIT: `${options.rate}/s`,
      ...(options.withQuota && {
        ENVDATA_QUOTA: BENCH_QUOTA.quota,
        ENVDATA_SYNC_RESERVE: BENCH_QUOTA.syncReserve,
      }),
    },
    options.withQuota ? 'q' : 'r',
  );
  let worker: IngestWorker | undefined;
  try {
    const perLocation = Math.ceil((options.rate * options.seconds) / locations.length);
    // The run with a quota backfills the years before: the first one's are landed already.
    const to = new Date(Date.UTC(options.withQuota ? 2006 : 2012, 0, 1));
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
    const load = loadavg()[0] ?? 0;
    const marginMs = worker.pacer?.margin.marginMs;
    await worker.close();
    const stats = await simulator.stats();
    const steady = steadyRateOf(stats.rateWindows);
    return {
      withQuota: options.withQuota,
      calls: stats.total,
      throttled: stats.byStatus['429'] ?? 0,
      chunks: done.total,
      done: done.done,
      status: done.status,
      seconds,
      steadyRate: steady.rate,
      steadyWindows: steady.windows,
      mostPerWindow: steady.mostPerWindow,
      marginMs,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      load,
    };
  } finally {
    await worker?.close();
    await app.close();
    await simulator.stop();
  }
}
