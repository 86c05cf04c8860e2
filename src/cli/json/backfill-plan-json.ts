import { z } from 'zod';
import { DATASETS, type Dataset } from '../../types.js';
import type { Location } from '../../locations/location.js';
import type { BackfillStart } from '../../runs/start-backfill.js';
import type { RateLimitRule } from '../../config/rate-limit.js';
import { count, isoTimestamp, jsonDocument } from './json-document.js';
import {
  durationJson,
  planEstimateJson,
  toDurationJson,
  toPlanEstimateJson,
} from './plan-estimate-json.js';
import { planCostJson, toPlanCostJson } from './plan-cost-json.js';
import type { PlanCost } from '../../planner/plan-cost.js';

/** `envdata backfill --dry-run --json`. */
export const backfillPlanJson = jsonDocument('backfill-plan', {
  request: z
    .object({
      datasets: z.array(z.enum(DATASETS)).describe('the datasets asked for (`--dataset`)'),
      from: isoTimestamp.describe('`--from`, inclusive'),
      to: isoTimestamp.describe('`--to`, exclusive (as asked: the plan clips it, see `notes`)'),
      windowHours: count.describe(
        'hours per chunk (`--window`, or ENVDATA_HISTORY_WINDOW); with `windowAuto`, the first window (48)',
      ),
      windowAuto: z
        .boolean()
        .describe(
          '`--window auto` or ENVDATA_HISTORY_WINDOW=auto: chunks are sized by the window learned for the key and dataset (`plan.byDataset.*.windowHours`)',
        ),
      locations: z
        .array(
          z.object({
            locationId: count.describe('the location’s id'),
            name: z.string().describe('its name'),
          }),
        )
        .describe('the locations planned for (`--location`, or every active one)'),
    })
    .describe('what was asked for'),
  plan: planEstimateJson.describe(
    'what the backfill would plan now: the range minus what the ledger holds',
  ),
  ...durationJson,
  ...planCostJson,
  plannedByOtherRuns: z
    .array(
      z.object({
        runId: count.describe('the unfinished run'),
        status: z.string().describe('its status: `running`, `paused` (resume it) or `planning`'),
        hours: count.describe('hours of the range it will fetch, left out of this plan'),
        byLocation: z
          .array(
            z.object({
              locationId: count.describe('the location’s id'),
              name: z.string().describe('its name'),
              dataset: z.enum(DATASETS).describe('the dataset'),
              hours: count.describe('hours of this location and dataset left to the run'),
              chunks: count.describe(
                'chunks of this plan’s window those hours would have taken (`request.windowHours`)',
              ),
            }),
          )
          .describe('the same by location and dataset'),
      }),
    )
    .describe(
      'hours of the range that unfinished runs will fetch: left out of the plan, so no hour is paid for twice',
    ),
  notes: z
    .array(z.string())
    .describe(
      'why the plan is smaller than the range asked for, one sentence each (for people: the wording may change)',
    ),
});

export type BackfillPlanJson = z.infer<typeof backfillPlanJson>;

/** What `envdata backfill --dry-run` would plan, as JSON. */
export function toBackfillPlanJson(
  request: {
    datasets: readonly Dataset[];
    from: Date;
    to: Date;
    windowHours: number;
    windowAuto: boolean;
    locations: readonly Location[];
  },
  start: BackfillStart,
  rateLimits: readonly RateLimitRule[],
  generatedAt: Date,
  cost: PlanCost,
): BackfillPlanJson {
  return {
    kind: 'backfill-plan',
    version: 1,
    generatedAt: generatedAt.toISOString(),
    request: {
      datasets: DATASETS.filter((d) => request.datasets.includes(d)),
      from: request.from.toISOString(),
      to: request.to.toISOString(),
      windowHours: request.windowHours,
      windowAuto: request.windowAuto,
      locations: request.locations.map((l) => ({ locationId: l.locationId, name: l.name })),
    },
    plan: toPlanEstimateJson(start.estimate, request.datasets, request.windowHours),
    ...toDurationJson(start.estimate.durationMs, rateLimits),
    ...toPlanCostJson(cost),
    plannedByOtherRuns: start.overlaps.map((o) => ({
      runId: o.runId,
      status: o.status,
      hours: o.hours,
      byLocation: o.pairs.map((p) => ({
        locationId: p.locationId,
        name: request.locations.find((l) => l.locationId === p.locationId)?.name ?? '',
        dataset: p.dataset,
        hours: p.hours,
        chunks: p.chunks,
      })),
    })),
    notes: [...start.notes],
  };
}
