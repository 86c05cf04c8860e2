import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import { createApp, type App } from '../../src/app.js';
import type { CreateAppOptions } from '../../src/runtime/create-app-options.js';
import type { QueueBackend } from '../../src/config/config.js';
import { configFromDefaults } from '../../src/config/load-config.js';
import { runProgress, type RunProgress } from '../../src/ledger/run-progress.js';
import type { Location } from '../../src/locations/location.js';
import { planRun } from '../../src/planner/plan-run.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import type { Database } from '../../src/warehouse/schema.js';
import { lastCompleteHourEnd } from '../../src/windows/tile-windows.js';

/** Where one backend's measurements keep the warehouse and the queue. */
export interface BenchTarget {
  readonly backend: QueueBackend;
  /** The bench's own database: the warehouse, and on `postgres` the queue (`envdata_queue`). */
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** The bench's own BullMQ key prefix on Redis; unused on `postgres`. */
  readonly prefix: string;
}

/**
 * An app on `target` with the simulator's demo key and raw archiving on; `env` adds settings
 * (ENVDATA_BASE_URL, ENVDATA_RATE_LIMIT, …). `queue` names a separate queue on Redis (a prefix
 * of its own, `<prefix>-<queue>`); the Postgres backend has one queue per database. `options`
 * go to `createApp` (`metrics: false`…).
 */
export function benchApp(
  target: BenchTarget,
  env: Readonly<Record<string, string>> = {},
  queue?: string,
  options: CreateAppOptions = {},
): App {
  return createApp(
    configFromDefaults({
      DATABASE_URL: target.databaseUrl,
      REDIS_URL: target.redisUrl,
      ENVDATA_QUEUE_BACKEND: target.backend,
      ENVDATA_QUEUE_PREFIX: queue === undefined ? target.prefix : `${target.prefix}-${queue}`,
      ENVDATA_API_KEY: DEMO_API_KEY,
      // The database is dropped with FORCE at the end: idle connections' warnings are noise.
      LOG_LEVEL: 'error',
      ENVDATA_ARCHIVE_RAW: 'true',
      ...env,
    }),
    options,
  );
}

/** Polls the ledger until the run is no longer running. */
export async function waitForRun(db: Kysely<Database>, runId: number): Promise<RunProgress> {
  for (;;) {
    const progress = await runProgress(db, runId);
    if (!progress) throw new Error(`run ${runId} is not in the ledger`);
    if (progress.status !== 'running') return progress;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A backfill of pollen and weather timed from planning to its end (`timedBackfill`). */
export interface TimedBackfill {
  readonly runId: number;
  readonly chunks: number;
  readonly calls: number;
  readonly rows: number;
  /** How the run ended: `done` unless something failed. */
  readonly status: string;
  readonly seconds: number;
  /** CPU time of this process (the worker; the simulator and Postgres run in their own). */
  readonly cpuSeconds: number;
}

/**
 * Plans a backfill of pollen and weather of `locations` over `from`–`to` (48 h windows), lets
 * `feed` put its first jobs on the queue, and waits for the run's end: the clock and the CPU
 * count start with the planning. The worker must be connected before.
 */
export async function timedBackfill(
  app: App,
  locations: readonly Location[],
  window: { readonly from: Date; readonly to: Date },
  feed: () => Promise<unknown>,
): Promise<TimedBackfill> {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const { runId, estimate } = await planRun(
    app.db,
    {
      kind: 'backfill',
      datasets: ['pollen', 'weather'],
      locations,
      from: window.from,
      to: window.to,
      windowHours: 48,
      now: lastCompleteHourEnd(),
    },
    [],
  );
  await feed();
  const done = await waitForRun(app.db, runId!);
  const seconds = (performance.now() - t0) / 1_000;
  const cpu = process.cpuUsage(cpu0);
  return {
    runId: runId!,
    chunks: estimate.chunks,
    calls: done.calls,
    rows: done.rows,
    status: done.status,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}
