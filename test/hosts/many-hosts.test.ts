import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { configFromDefaults } from '../../src/config/load-config.js';
import type { Location } from '../../src/locations/location.js';
import type { IngestJobData } from '../../jobs/ingest-chunk-job.js';
import { planRun } from '../../src/planner/plan-run.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { workerName } from '../../src/queue/worker-identity.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/start-simulator.js';
import { migrateToLatest } from '../../src/warehouse/migrate-to-latest.js';
import type { Database } from '../../src/warehouse/schema.js';
import { useCleanReference } from '../backfill/clean-reference.js';
import { warehouseDigest } from '../backfill/warehouse-digest.js';
import { BERLIN, BRISBANE } from '../fixtures/places.js';
import { addPointLocation } from '../harness/add-point-location.js';
import { backfillRange } from '../harness/backfill-fixture.js';
import { pollUntil } from '../harness/poll-until.js';
import {
  startPrivatePostgres,
  startPrivateRedis,
  type PrivatePostgres,
  type PrivateRedis,
} from '../harness/private-services.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { historyCalls, repeatedWindows, windowName } from './history-calls.js';
import { createHostLab, type HostLab } from './host-lab.js';
import { startHostWorker, type HostWorker } from './host-worker.js';

/**
 * Three worker hosts (network namespaces) against one Redis, one Postgres and a service that
 * allows `RATE` per key; one host is cut off mid-run for longer than the job lock, then comes
 * back. Run by `npm run test:hosts` (root), never by `npm test`.
 */

// The service's limit and envdata's, the same: 10 calls per 2-second window (as in
// backfill.rate-limited: the limiter's margin, a tenth of the window, is 200 ms there).
const RATE = { max: 10, durationMs: 2_000 };
const ENVDATA_RATE_LIMIT = '10/2s';
const JOB_LOCK_MS = 2_000;
const CONCURRENCY = 2;
// 20 windows × 2 datasets × 2 locations = 80 chunks: ~18 s at the limit.
const RANGE = backfillRange('2024-01-02', '2024-02-11');
// Every history answer is held this long, so that a host has calls in flight to be cut off in.
const LATENCY_MS = 300;

const reference = useCleanReference();

let lab: HostLab;
let postgres: PrivatePostgres;
let redis: PrivateRedis;
let simulator: RunningSimulator;
let app: App;
let locations: Location[];
const workers: HostWorker[] = [];
const queuePrefix = `envdata-hosts-${randomBytes(3).toString('hex')}`;

// Ctrl-C or a kill while the lab is up: take it down before going (namespaces, processes, services).
const onSignal = (signal: NodeJS.Signals) => {
  lab?.remove();
  process.kill(process.pid, signal);
};

beforeAll(async () => {
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  lab = await createHostLab(3);
  const listen = { host: lab.gatewayIp, parentDir: lab.dir };
  [postgres, redis] = await Promise.all([
    startPrivatePostgres({ ...listen, trustNetwork: lab.subnet }),
    startPrivateRedis(listen),
  ]);
  const admin = new pg.Client({ connectionString: postgres.url() });
  await admin.connect();
  await admin.query('create database envdata');
  await admin.end();
  simulator = await startSimulator({
    host: lab.gatewayIp,
    adminToken: randomBytes(16).toString('hex'),
    // The rate windows follow the simulator's clock: a frozen one never opens another.
    now: null,
    rateLimit: { ...RATE, retryAfter: 'always' },
    faults: `history:latency=${LATENCY_MS}@100%`,
    requestLog: 10_000,
  });
  app = createApp(configFromDefaults(hostEnv({ LOG_LEVEL: 'silent' })));
  await migrateToLatest(app.db, app.logger);
  // Same order as the clean reference's fixture: same location ids in both warehouses.
  locations = [await addPointLocation(app.db, BERLIN), await addPointLocation(app.db, BRISBANE)];
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop(5_000)));
  await app?.close();
  await simulator?.close();
  await redis?.remove();
  await postgres?.remove();
  lab?.remove();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
});

/** What every process of the run is told: the lab's services, the shared limit. */
function hostEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: postgres.url('envdata'),
    REDIS_URL: redis.url,
    ENVDATA_QUEUE_BACKEND: 'redis',
    ENVDATA_QUEUE_PREFIX: queuePrefix,
    ENVDATA_BASE_URL: simulator.url,
    ENVDATA_API_KEY: DEMO_API_KEY,
    ENVDATA_RATE_LIMIT,
    ENVDATA_JOB_LOCK_MS: String(JOB_LOCK_MS),
    ENVDATA_SHUTDOWN_TIMEOUT_MS: '2000',
    ENVDATA_ARCHIVE_RAW: 'false',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

interface ChunkRow {
  chunk_id: string;
  dataset: 'pollen' | 'weather';
  location_id: number;
  window_from: Date;
  window_to: Date;
  status: string;
  attempts: number;
  calls: number;
  rows_landed: number;
  finished_at: Date | null;
}

async function chunkRows(db: Kysely<Database>, ids: readonly number[]): Promise<ChunkRow[]> {
  const { rows } = await sql<ChunkRow>`
    select chunk_id, dataset, location_id, window_from, window_to, status, attempts, calls,
      rows_landed, finished_at
    from envdata.chunk where chunk_id = any(${[...ids]}::bigint[]) order by chunk_id`.execute(db);
  return rows;
}

/** A digest of the fact rows of each chunk: its dataset's tables, its location and window. */
async function factsOf(db: Kysely<Database>, chunks: readonly ChunkRow[]): Promise<unknown[]> {
  const tables = {
    weather: ['weather_hourly'],
    pollen: ['pollen_hourly', 'pollen_species_hourly'],
  } as const;
  const digests = [];
  for (const c of chunks) {
    for (const table of tables[c.dataset]) {
      const { rows } = await sql<{ digest: string | null; n: number }>`
        select md5(string_agg((to_jsonb(t) - 'answer_id')::text, '|' order by (to_jsonb(t) - 'answer_id')::text)) as digest, count(*)::int as n
        from ${sql.table(`envdata.${table}`)} t
        where location_id = ${c.location_id} and observed_at >= ${c.window_from}
          and observed_at < ${c.window_to}`.execute(db);
      digests.push({ chunk: c.chunk_id, table, ...rows[0] });
    }
  }
  return digests;
}

describe('three worker hosts, one budget, one host cut off mid-run', () => {
  it('finishes with the clean warehouse, within the limit, fetching again only what the cut host had in flight', async () => {
    for (const host of lab.hosts) workers.push(startHostWorker(lab, host, CONCURRENCY, hostEnv()));
    // Each announces itself to Redis: pid → host.
    await pollUntil(
      async () => {
        const connected = await app.queues.listWorkers(QUEUE_NAMES.ingest);
        return connected.length === 3 ? { done: connected } : { last: connected };
      },
      {
        timeoutMs: 60_000,
        describe: (last) =>
          `the three workers did not connect: ${JSON.stringify(last)}\n${workers
            .map((w) => `${w.host.name}: ${w.lines.join('\n')}`)
            .join('\n')}`,
      },
    );
    const cutWorker = workers[2]!;
    const cutHost = lab.hosts[2]!;

    const { runId } = await planRun(
      app.db,
      { kind: 'backfill', ...RANGE, locations },
      app.config.rateLimits,
    );
    expect(runId).toBeDefined();

    // Cut h3 off while one of its calls is held by the service: its chunk is in flight.
    await pollUntil(
      async () => {
        const log = simulator.requests();
        const answered = log.filter((r) => r.answer !== undefined).length;
        const pending = log.some(
          (r) => r.answer === undefined && r.remote.replace(/^::ffff:/, '') === cutHost.ip,
        );
        return answered >= 12 && pending ? { done: true } : { last: answered };
      },
      { timeoutMs: 60_000, everyMs: 5, describe: (n) => `h3 made no call (${n} answered)` },
    );
    lab.cut(cutHost);
    const cutAt = Date.now();

    // In flight on h3 at the cut: its active jobs (BullMQ names the worker that took each) whose
    // chunk the ledger has running.
    const queue = app.queues.queue<IngestJobData>(QUEUE_NAMES.ingest);
    const h3Name = workerName(CONCURRENCY, undefined, cutWorker.child.pid);
    const h3Jobs = (await queue.getActive()).filter((job) => job.processedBy === h3Name);
    const running = (
      await chunkRows(
        app.db,
        h3Jobs.map((job) => job.data.chunkId),
      )
    ).filter((c) => c.status === 'running');
    const inFlight = running.map((c) => Number(c.chunk_id));
    expect(inFlight.length).toBeGreaterThan(0);

    // The job lock runs out, stalled recovery hands h3's jobs to h1 and h2, which land them:
    // completed (and removed) while h3 cannot complete anything.
    await pollUntil(
      async () => {
        const states = await Promise.all(h3Jobs.map((job) => queue.getJobState(job.id!)));
        const rows = await chunkRows(app.db, inFlight);
        const handedOn = states.every((s) => s === 'completed' || s === 'unknown');
        return handedOn && rows.every((r) => r.status === 'done')
          ? { done: true }
          : { last: { states, rows: rows.map((r) => r.status) } };
      },
      {
        timeoutMs: 30_000,
        describe: (last) => `h3's chunks were not taken over: ${JSON.stringify(last)}`,
      },
    );
    const cutMs = Date.now() - cutAt;
    expect(cutMs).toBeGreaterThan(JOB_LOCK_MS);
    const before = {
      rows: await chunkRows(app.db, inFlight),
      facts: await factsOf(app.db, running),
    };
    const h3LinesAtRestore = cutWorker.lines.length;
    lab.restore(cutHost);

    const progress = await waitForRun(app.db, runId!, { timeoutMs: 90_000 });
    expect(progress).toMatchObject({ status: 'done', failed: 0 });
    // h3 comes back and finishes each job it had: it lands what it fetched (or finds the chunk
    // done), then BullMQ refuses to complete a job it no longer holds, and h3 says so.
    await pollUntil(
      async () => {
        const said = cutWorker.lines.slice(h3LinesAtRestore).join('\n');
        const refused = inFlight.filter((id) =>
          new RegExp(`"reason":"Missing (key|lock) for job chunk-${id}\\.`).test(said),
        );
        return refused.length === inFlight.length ? { done: true } : { last: refused };
      },
      {
        timeoutMs: 30_000,
        describe: (refused) =>
          `h3 did not come back to its jobs ${JSON.stringify(inFlight)} (refused: ${JSON.stringify(refused)}):\n${cutWorker.lines.join('\n')}`,
      },
    );
    const after = {
      rows: await chunkRows(app.db, inFlight),
      facts: await factsOf(app.db, running),
    };

    const calls = historyCalls(simulator.requests());
    const repeated = repeatedWindows(calls);
    const stats = simulator.stats();
    const maxPerWindow = Math.max(...stats.rateWindows.map((w) => w.allowed + w.limited));
    const figures = {
      chunks: progress.done,
      calls: calls.length,
      cutMs,
      inFlightOnCutHost: inFlight.length,
      windowsFetchedTwice: repeated.size,
      maxCallsPerRateWindow: maxPerWindow,
      rateWindow: ENVDATA_RATE_LIMIT,
      statuses: stats.byStatus,
    };
    process.stdout.write(`many hosts: ${JSON.stringify(figures)}\n`);

    expect(stats.byStatus).toEqual({ '200': stats.total });
    expect(maxPerWindow).toBeLessThanOrEqual(RATE.max);
    const inFlightWindows = new Set(
      running.map((c) =>
        windowName(
          c.dataset,
          locations.find((l) => l.locationId === c.location_id)!,
          {
            from: c.window_from,
          },
        ),
      ),
    );
    for (const [window, list] of repeated) {
      expect(inFlightWindows).toContain(window);
      expect(list.length).toBe(2);
    }
    expect(after).toEqual(before);
    expect(await warehouseDigest(app.db)).toEqual(await reference.digestAfter(RANGE));
  });
});
