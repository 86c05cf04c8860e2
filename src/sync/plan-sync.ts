import type { Kysely } from 'kysely';
import { coverageEnds } from '../ledger/coverage-ends.js';
import { createRunWithGaps } from '../ledger/create-run-with-gaps.js';
import type { Gap } from '../ledger/find-gaps.js';
import type { Location } from '../locations/location.js';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import { HISTORY_STARTS } from '../datasets/dataset-coverage.js';
import { lastCompleteHourEnd } from '../windows/tile-windows.js';

/** Runs of the nightly sync go before backfills. */
export const SYNC_PRIORITY = 10;

const HOUR_MS = 3_600_000;

export interface SyncRequest {
  readonly locations: readonly Location[];
  readonly datasets: readonly Dataset[];
  readonly lookbackHours: number;
  /** The most a sync catches up per location and dataset (ENVDATA_SYNC_HORIZON). */
  readonly horizonHours: number;
  readonly windowHours: number;
  readonly now?: Date;
  /** The W3C `traceparent` of the span planning it, kept on the run (its chunks link to it). */
  readonly traceparent?: string | null;
}

/** History older than the sync's horizon that nothing covers: left to `envdata backfill`. */
export interface LeftToBackfill {
  readonly location: Location;
  readonly dataset: Dataset;
  /** `[from, to)`: from where the ledger's knowledge ends (or the dataset's history starts). */
  readonly from: Date;
  readonly to: Date;
}

export interface SyncPlan {
  readonly gaps: readonly Gap[];
  readonly leftToBackfill: readonly LeftToBackfill[];
  readonly end: Date;
}

/**
 * What a sync fetches: for every location and dataset, from where the ledger's knowledge ends
 * (`coverageEnds`) minus the lookback that re-reads late corrections, up to the last complete
 * hour — but never more than the horizon back. After a missed night or a week of downtime it
 * closes the whole gap; after a tiny backfill in 1990 it fetches the horizon, and says that the
 * decades between are left to backfill.
 */
export async function planSyncGaps(db: Kysely<Database>, request: SyncRequest): Promise<SyncPlan> {
  const end = lastCompleteHourEnd(request.now);
  const horizonStart = end.getTime() - request.horizonHours * HOUR_MS;
  const ends = await coverageEnds(
    db,
    request.locations.map((l) => l.locationId),
  );
  const gaps: Gap[] = [];
  const leftToBackfill: LeftToBackfill[] = [];
  for (const location of request.locations) {
    for (const dataset of request.datasets) {
      const known = ends.get(`${location.locationId}:${dataset}`);
      const historyStart = HISTORY_STARTS[dataset].getTime();
      const anchor = known && known < end ? known.getTime() : end.getTime();
      const wanted = known ? anchor - request.lookbackHours * HOUR_MS : horizonStart;
      const from = Math.max(wanted, horizonStart, historyStart);
      if (from < end.getTime()) {
        gaps.push({ dataset, locationId: location.locationId, from: new Date(from), to: end });
      }
      const uncoveredFrom = Math.max(known ? known.getTime() : historyStart, historyStart);
      if (uncoveredFrom < from) {
        leftToBackfill.push({
          location,
          dataset,
          from: new Date(uncoveredFrom),
          to: new Date(from),
        });
      }
    }
  }
  return { gaps, leftToBackfill, end };
}

/** Plans a sync (`planSyncGaps`) as a high-priority run that re-reads what its gaps cover. */
export async function planSync(
  db: Kysely<Database>,
  request: SyncRequest,
): Promise<SyncPlan & { runId: number }> {
  const plan = await planSyncGaps(db, request);
  const runId = await createRunWithGaps(db, {
    kind: 'sync',
    priority: SYNC_PRIORITY,
    windowHours: request.windowHours,
    gaps: plan.gaps,
    refetch: true,
    traceparent: request.traceparent ?? null,
    request: {
      datasets: request.datasets,
      locations: request.locations.map((l) => l.locationId),
      lookbackHours: request.lookbackHours,
      horizonHours: request.horizonHours,
      to: plan.end.toISOString(),
    },
  });
  return { ...plan, runId };
}
