import type { Uses } from '../runtime/app-resources.js';
import { createFeeder } from '../dispatch/create-feeder.js';
import { snapshotJob, snapshotJobId, type SnapshotJobData } from '../../jobs/snapshot-job.js';
import { SNAPSHOT_PRODUCTS } from '../datasets/snapshot-products.js';
import { RunCloser } from '../ledger/run-closer.js';
import { resolveLocations } from '../locations/resolve-locations.js';
import { estimateGaps, type PlanEstimate } from '../planner/plan-run.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { DATASETS } from '../types.js';
import { planSync, planSyncGaps, type LeftToBackfill, type SyncRequest } from './plan-sync.js';
import { inSpan, traceparentOf } from '../tracing/tracing.js';

export interface SyncStart {
  readonly runId: number;
  readonly locations: number;
  readonly gaps: number;
  readonly snapshots: number;
  /** The ids of the snapshot jobs queued (`snapshotJobId`): `sync --wait` awaits their end. */
  readonly snapshotJobIds: readonly string[];
  /** History older than the horizon that nothing covers: run `envdata backfill` for it. */
  readonly leftToBackfill: readonly LeftToBackfill[];
}

export interface SyncEstimate {
  readonly locations: number;
  readonly estimate: PlanEstimate;
  /** Snapshot calls (latest readings and forecasts), besides the history calls. */
  readonly snapshots: number;
  readonly leftToBackfill: readonly LeftToBackfill[];
  /** The end of the last complete hour: where the sync's history would stop. */
  readonly end: Date;
}

function syncRequest(
  app: Uses<'config' | 'db' | 'logger' | 'queues'>,
  locations: SyncRequest['locations'],
  now: Date,
): SyncRequest {
  return {
    locations,
    datasets: DATASETS,
    lookbackHours: app.config.sync.lookbackHours,
    horizonHours: app.config.sync.horizonHours,
    windowHours: app.config.ingest.historyWindowHours,
    now,
  };
}

/** `envdata sync --dry-run`: the calls a sync would make now, writing nothing. */
export async function estimateSync(
  app: Uses<'config' | 'db' | 'logger' | 'queues'>,
  now: Date = new Date(),
): Promise<SyncEstimate> {
  const locations = await resolveLocations(app.db, []);
  const plan = await planSyncGaps(app.db, syncRequest(app, locations, now));
  return {
    locations: locations.length,
    estimate: estimateGaps(
      plan.gaps,
      { locations, windowHours: app.config.ingest.historyWindowHours },
      app.config.rateLimits,
    ),
    snapshots: locations.length * SNAPSHOT_PRODUCTS.length,
    leftToBackfill: plan.leftToBackfill,
    end: plan.end,
  };
}

/** "Berlin weather: 36 years uncovered before 2026-10-23 — run `envdata backfill …`". */
export function formatLeftToBackfill(left: LeftToBackfill): string {
  const days = (left.to.getTime() - left.from.getTime()) / 86_400_000;
  const span = days >= 730 ? `${Math.floor(days / 365.25)} years` : `${Math.round(days)} days`;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return (
    `${left.location.name} ${left.dataset}: ${span} uncovered before ${day(left.to)}, older than ` +
    `the sync horizon — run \`envdata backfill --dataset ${left.dataset} --location ` +
    `id:${left.location.locationId} --from ${day(left.from)} --to ${day(left.to)}\``
  );
}

/**
 * One sync (`envdata sync --now`, or the scheduler's nightly job): plans the recent history of
 * every registered location (lookback included) as a high-priority run, and queues the latest
 * readings and the three forecasts of each location as snapshot jobs. The workers do the rest,
 * through the same ledger, queue and rate limit as backfills.
 */
export async function startSync(
  app: Uses<'config' | 'db' | 'logger' | 'queues'>,
  now: Date = new Date(),
): Promise<SyncStart> {
  // A run planned is the trace its chunks link to (`envdata.run.plan`, kept on the run's row).
  return inSpan(
    'envdata.run.plan',
    async (span) => {
      const start = await planAndQueue(app, now, traceparentOf(span.scope));
      span.setAttributes({ 'envdata.run.id': start.runId });
      return start;
    },
    { attributes: { 'envdata.run.kind': 'sync' } },
  );
}

async function planAndQueue(
  app: Uses<'config' | 'db' | 'logger' | 'queues'>,
  now: Date,
  traceparent: string | null,
): Promise<SyncStart> {
  const locations = await resolveLocations(app.db, []);
  const { runId, gaps, leftToBackfill } = await planSync(app.db, {
    ...syncRequest(app, locations, now),
    traceparent,
  });
  const fetchedAt = now.toISOString();
  const jobs = locations.flatMap((l) =>
    SNAPSHOT_PRODUCTS.map(({ product, dataset }) =>
      snapshotJob(
        { runId, locationId: l.locationId, product, dataset, fetchedAt },
        app.config.worker,
      ),
    ),
  );
  const queue = app.queues.queue<SnapshotJobData>(QUEUE_NAMES.ingest);
  for (let i = 0; i < jobs.length; i += 500) await queue.addBulk(jobs.slice(i, i + 500));
  // Nothing to fetch: the run is done at once (quietly: `sync planned` below says it all).
  if (gaps.length === 0) await new RunCloser(app.db).close(runId);
  else await createFeeder(app).topUp();
  app.logger.info({ runId, locations: locations.length, gaps: gaps.length }, 'sync planned');
  for (const left of leftToBackfill.slice(0, 20)) app.logger.info(formatLeftToBackfill(left));
  if (leftToBackfill.length > 20) {
    app.logger.info(`… and ${leftToBackfill.length - 20} more location/dataset pairs`);
  }
  return {
    runId,
    locations: locations.length,
    gaps: gaps.length,
    snapshots: jobs.length,
    snapshotJobIds: jobs.map((j) => snapshotJobId(j.data)),
    leftToBackfill,
  };
}
