import { sql, type Kysely } from 'kysely';
import type { Location } from '../locations/location.js';
import { HISTORY_STARTS } from '../planner/dataset-coverage.js';
import type { Gap } from '../planner/find-gaps.js';
import { createRunWithGaps } from '../planner/plan-run.js';
import { lastCompleteHourEnd } from '../planner/tile-windows.js';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';

/** Runs of the nightly sync go before backfills. */
export const SYNC_PRIORITY = 10;

export interface SyncRequest {
  readonly locations: readonly Location[];
  readonly datasets: readonly Dataset[];
  readonly lookbackHours: number;
  readonly windowHours: number;
  readonly now?: Date;
}

/**
 * Plans a sync: for every location and dataset, from the end of what the ledger holds as done,
 * minus the lookback that re-reads late corrections, up to the last complete hour. After a
 * missed night or a week of downtime it covers the whole gap; it never re-reads what is done
 * before the lookback. A location with nothing ingested yet gets the lookback only (history is
 * what `envdata backfill` is for).
 */
export async function planSync(
  db: Kysely<Database>,
  request: SyncRequest,
): Promise<{ runId: number; gaps: readonly Gap[] }> {
  const end = lastCompleteHourEnd(request.now);
  const lookbackMs = request.lookbackHours * 3_600_000;
  const ids = request.locations.map((l) => l.locationId);
  const { rows } = await sql<{ location_id: number; dataset: Dataset; last_to: Date }>`
    select location_id, dataset, max(window_to) as last_to
    from envdata.chunk
    where status = 'done' and location_id = any(${ids}::int[])
    group by location_id, dataset`.execute(db);
  const last = new Map(rows.map((r) => [`${r.location_id}:${r.dataset}`, r.last_to]));
  const gaps: Gap[] = [];
  for (const location of request.locations) {
    for (const dataset of request.datasets) {
      const done = last.get(`${location.locationId}:${dataset}`);
      const anchor = done && done < end ? done : end;
      const from = new Date(
        Math.max(anchor.getTime() - lookbackMs, HISTORY_STARTS[dataset].getTime()),
      );
      if (from < end) gaps.push({ dataset, locationId: location.locationId, from, to: end });
    }
  }
  const runId = await createRunWithGaps(db, {
    kind: 'sync',
    priority: SYNC_PRIORITY,
    windowHours: request.windowHours,
    gaps,
    refetch: true,
    request: {
      datasets: request.datasets,
      locations: ids,
      lookbackHours: request.lookbackHours,
      to: end.toISOString(),
    },
  });
  return { runId, gaps };
}
