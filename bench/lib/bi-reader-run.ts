import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import type { Location } from '../../src/locations/location.js';
import { startSync } from '../../src/sync/start-sync.js';
import { ANALYTICS_VIEW_KEYS } from '../../src/warehouse/analytics-view-keys.js';
import { ensureBiRole } from '../../src/warehouse/ensure-bi-role.js';
import type { Database } from '../../src/warehouse/schema.js';
import { benchApp, timedBackfill, waitForRun, type BenchTarget } from './bench-app.js';

/** One run of `bench:metrics --compare bi-reader`: a backfill, then a sync. */
export interface BiReaderRun {
  readonly biReader: boolean;
  readonly chunks: number;
  readonly rows: number;
  /** The backfill's seconds and the sync's, together. */
  readonly seconds: number;
  readonly backfillSeconds: number;
  readonly syncSeconds: number;
  readonly cpuSeconds: number;
  /** Snapshot rows the sync stored (fetched at `syncAt`, in that month's partitions). */
  readonly snapshotRows: number;
  /** `done` when both ended so, else how the first that did not ended. */
  readonly status: string;
}

/** A BI role of the bench's own (roles are server-wide): its login and how to drop it. */
export interface BenchBiRole {
  readonly url: string;
  drop(): Promise<void>;
}

/** Creates a BI role of the bench's own on `db` (at `databaseUrl`), as `envdata bi-role` does. */
export async function createBenchBiRole(
  db: Kysely<Database>,
  databaseUrl: string,
): Promise<BenchBiRole> {
  const role = `envdata_bi_bench_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  await ensureBiRole(db, { role, password });
  const url = new URL(databaseUrl);
  url.username = role;
  url.password = password;
  return {
    url: url.toString(),
    async drop() {
      await sql.raw(`drop owned by ${role}`).execute(db);
      await sql.raw(`drop role if exists ${role}`).execute(db);
    },
  };
}

/**
 * Opens a session of the BI role that lifts its own timeouts and reads every analytics view in a
 * transaction it leaves open, as a long report would: its read locks stay until `end`.
 */
async function holdLongRead(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: 'bench-bi-reader' });
  await client.connect();
  await client.query('set statement_timeout = 0');
  await client.query('set idle_in_transaction_session_timeout = 0');
  await client.query('begin');
  for (const view of Object.keys(ANALYTICS_VIEW_KEYS)) {
    await client.query(`select count(*) from analytics.${view}`);
  }
  return client;
}

/**
 * Backfills pollen and weather over the `days` before `to` at `locations` with one worker of
 * `concurrency` slots against the simulator at `baseUrl`, then runs a sync at `syncAt` (the
 * first hours of a month no snapshot was fetched in: its snapshots need that month's partitions,
 * created during the sync). With `biReader`, a BI session holds a read of every analytics view,
 * its timeouts lifted, from before the backfill to after the sync; opening it is outside the
 * clock.
 */
export async function measureBiReaderRun(
  target: BenchTarget,
  locations: readonly Location[],
  options: {
    readonly biReader: boolean;
    readonly biUrl: string;
    readonly baseUrl: string;
    readonly to: Date;
    readonly days: number;
    readonly syncAt: Date;
    readonly concurrency: number;
  },
): Promise<BiReaderRun> {
  const app = benchApp(target, {
    ENVDATA_BASE_URL: options.baseUrl,
    ENVDATA_RATE_LIMIT: 'off',
    ENVDATA_SYNC_LOOKBACK: '30h',
  });
  let reader: pg.Client | undefined;
  try {
    await app.start({ worker: { concurrency: options.concurrency } });
    await app.worker!.worker.waitUntilReady();
    if (options.biReader) reader = await holdLongRead(options.biUrl);
    const backfill = await timedBackfill(
      app,
      locations,
      { from: new Date(options.to.getTime() - options.days * 86_400_000), to: options.to },
      () => app.worker!.feed(),
    );
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const { runId } = await startSync(app, options.syncAt);
    await app.worker!.feed();
    const sync = await waitForRun(app.db, runId);
    // The snapshot jobs are no chunks of the run: the sync is over when the queue is empty.
    const queue = app.queues.queue(QUEUE_NAMES.ingest);
    for (;;) {
      const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
      if (Object.values(counts).every((n) => n === 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const syncSeconds = (performance.now() - t0) / 1_000;
    const cpu = process.cpuUsage(cpu0);
    if (reader) {
      // Still open: nothing envdata did ended it.
      await reader.query('select 1');
    }
    const { rows: stored } = await sql<{ n: number }>`
      select (select count(*) from envdata.pollen_snapshot where fetched_at = ${options.syncAt})
        + (select count(*) from envdata.weather_snapshot where fetched_at = ${options.syncAt})
        as n`.execute(app.db);
    return {
      biReader: options.biReader,
      chunks: backfill.chunks + sync.total,
      rows: backfill.rows + sync.rows,
      seconds: backfill.seconds + syncSeconds,
      backfillSeconds: backfill.seconds,
      syncSeconds,
      cpuSeconds: backfill.cpuSeconds + (cpu.user + cpu.system) / 1e6,
      snapshotRows: Number(stored[0]?.n ?? 0),
      status: backfill.status !== 'done' ? backfill.status : sync.status,
    };
  } finally {
    await reader?.end().catch(() => undefined);
    await app.stop();
  }
}
