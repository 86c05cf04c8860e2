import { z } from 'zod';
import type { Config } from '../../config/config.js';
import { DATASETS, type Dataset } from '../../types.js';
import { estimateDurationMs } from '../../planner/estimate-plan.js';
import type { SyncEstimate } from '../../sync/start-sync.js';
import { count, isoTimestamp, jsonDocument } from './json-document.js';
import {
  durationJson,
  planEstimateJson,
  toDurationJson,
  toPlanEstimateJson,
} from './plan-estimate-json.js';
import { planCostJson, toPlanCostJson } from './plan-cost-json.js';
import type { PlanCost } from '../../planner/plan-cost.js';

/** `envdata sync --dry-run --json`. */
export const syncPlanJson = jsonDocument('sync-plan', {
  locations: count.describe('active locations the sync covers'),
  to: isoTimestamp.describe(
    'end of the last complete hour (exclusive): where the history of the sync stops',
  ),
  lookbackHours: count.describe(
    'ENVDATA_SYNC_LOOKBACK in hours: re-read before where each location’s coverage ends',
  ),
  horizonHours: count.describe(
    'ENVDATA_SYNC_HORIZON in hours: the most a sync catches up; older history is `leftToBackfill`',
  ),
  windowHours: count.describe('ENVDATA_HISTORY_WINDOW in hours: hours per chunk'),
  history: planEstimateJson.describe('the history the sync would fetch now'),
  snapshotCalls: count.describe(
    'calls for the latest readings and forecasts: one per location and snapshot product',
  ),
  calls: count.describe('every call: `history.calls` + `snapshotCalls`'),
  ...durationJson,
  ...planCostJson,
  leftToBackfill: z
    .array(
      z.object({
        locationId: count.describe('the location’s id'),
        location: z.string().describe('its name'),
        dataset: z.enum(DATASETS).describe('the dataset'),
        from: isoTimestamp.describe('start of the uncovered history (inclusive)'),
        to: isoTimestamp.describe('its end (exclusive), where the sync starts'),
      }),
    )
    .describe(
      'history older than the horizon that nothing covers: `envdata backfill` it (`--location id:N --from … --to …`)',
    ),
});

export type SyncPlanJson = z.infer<typeof syncPlanJson>;

/** What `envdata sync --dry-run` says a sync would do now, as JSON. */
export function toSyncPlanJson(
  sync: SyncEstimate,
  config: Pick<Config, 'sync' | 'ingest' | 'rateLimits'>,
  generatedAt: Date,
  cost: PlanCost,
): SyncPlanJson {
  const e = sync.estimate;
  const calls = e.calls + sync.snapshots;
  const datasets: readonly Dataset[] = DATASETS;
  return {
    kind: 'sync-plan',
    version: 1,
    generatedAt: generatedAt.toISOString(),
    locations: sync.locations,
    to: sync.end.toISOString(),
    lookbackHours: config.sync.lookbackHours,
    horizonHours: config.sync.horizonHours,
    windowHours: config.ingest.historyWindowHours,
    history: toPlanEstimateJson(e, datasets, config.ingest.historyWindowHours),
    snapshotCalls: sync.snapshots,
    calls,
    ...toDurationJson(estimateDurationMs(calls, config.rateLimits), config.rateLimits),
    ...toPlanCostJson(cost),
    leftToBackfill: sync.leftToBackfill.map((left) => ({
      locationId: left.location.locationId,
      location: left.location.name,
      dataset: left.dataset,
      from: left.from.toISOString(),
      to: left.to.toISOString(),
    })),
  };
}
