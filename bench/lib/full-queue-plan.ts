import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { createFeeder } from '../../src/dispatch/create-feeder.js';
import { toLocation } from '../../src/locations/insert-location.js';
import { planRun } from '../../src/planner/plan-run.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { benchApp, type BenchTarget } from './bench-app.js';
import { compactPostgresQueue, postgresQueueBytes, redisQueueBytes } from './queue-footprint.js';

/** Redis's memory for a full queue, at most (the target). */
export const TARGET_FULL_QUEUE_REDIS_BYTES = 50e6;

/** A plan of 1,000 locations × 30 years of weather, and the queue it fills: part 3. */
export interface FullQueuePlan {
  readonly chunks: number;
  readonly planSeconds: number;
  /** The run and its gaps after planning (chunks come later, a queue's worth at a time). */
  readonly ledgerBytes: number;
  /** Jobs waiting once the feeder filled the queue (ENVDATA_MAX_QUEUED_JOBS). */
  readonly jobs: number;
  /**
   * What filling the queue added: on Redis, the memory of the queue's keys; on Postgres, the size
   * of the tables of schema `envdata_queue` (compacted first).
   */
  readonly queueBytes: number;
  /** The same, everything the queue holds once full (Postgres: earlier parts' events too). */
  readonly queueTotalBytes: number;
}

/**
 * Registers 1,000 locations, plans 1995–2025 of weather in 48 h windows for them, and lets the
 * feeder fill the queue once (no worker); the run is stopped afterwards.
 */
export async function measureFullQueuePlan(target: BenchTarget): Promise<FullQueuePlan> {
  // A queue of its own on Redis, so its keys are the plan's alone.
  const app = benchApp(target, {}, 'p');
  try {
    await sql`
      insert into envdata.location (name, name_key, lat, lng, country_code, timezone, pollen_region, registered_by)
      select 'plan ' || g, 'plan ' || g, -60 + (g % 120) + g * 0.0001, -170 + (g % 340) + g * 0.0001, 'DE',
        'Europe/Berlin', 'europe', 'coordinates'
      from generate_series(1, 1000) g`.execute(app.db);
    const many = await app.db
      .selectFrom('location')
      .selectAll()
      .where('name', 'like', 'plan %')
      .execute();
    const t0 = performance.now();
    const { runId, estimate } = await planRun(
      app.db,
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
    const planSeconds = (performance.now() - t0) / 1_000;
    const { rows: ledger } = await sql<{ bytes: number }>`
      select (pg_total_relation_size('envdata.run_gap')
        + pg_total_relation_size('envdata.run'))::float8 as bytes`.execute(app.db);

    const queueBytes =
      target.backend === 'redis'
        ? () => redisQueueBytes(app.queues.connection(), app.config.queuePrefix)
        : () => postgresQueueBytes(app.db);
    if (target.backend === 'postgres') await compactPostgresQueue(app.db);
    const before = await queueBytes();
    const feeder = createFeeder(app);
    await feeder.topUp();
    const after = await queueBytes();
    const counts = await app.queues
      .queue(QUEUE_NAMES.ingest)
      .getJobCounts('waiting', 'prioritized');
    await app.db
      .updateTable('run')
      .set({ status: 'stopped' })
      .where('run_id', '=', runId!)
      .execute();
    return {
      chunks: estimate.chunks,
      planSeconds,
      ledgerBytes: ledger[0]!.bytes,
      jobs: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      queueBytes: after - before,
      queueTotalBytes: after,
    };
  } finally {
    await app.close();
  }
}
