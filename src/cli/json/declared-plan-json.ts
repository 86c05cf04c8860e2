import { z } from 'zod';
import type { RateLimitRule } from '../../config/rate-limit.js';
import { hasChanges, type DeclaredPlan } from '../../declared/declared-plan.js';
import type { PlanCost } from '../../planner/plan-cost.js';
import { DATASETS } from '../../types.js';
import type { OwedRuns } from '../read-owed-runs.js';
import { count, isoTimestamp, jsonDocument } from './json-document.js';
import { runJson, toRunJson } from './run-json.js';
import { planCostJson, toPlanCostJson } from './plan-cost-json.js';
import {
  durationJson,
  planEstimateJson,
  toDurationJson,
  toPlanEstimateJson,
} from './plan-estimate-json.js';

const registered = z.object({
  locationId: count.describe('the location’s id'),
  name: z.string().describe('its name'),
});

/** `envdata plan --json`. */
export const declaredPlanJson = jsonDocument('declared-plan', {
  file: z.string().describe('the declared file (`-f`, default `envdata.yaml`)'),
  digest: z
    .string()
    .describe('SHA-256 of the file, hex: `envdata apply` records it with the run it starts'),
  changes: z
    .boolean()
    .describe(
      '`false`: apply changes nothing and starts no run; the warehouse matches the file only when `owedRuns` is empty too',
    ),
  owedRuns: z
    .array(runJson)
    .describe(
      'unfinished runs (an earlier apply’s, a backfill) that still owe hours the file declares, as `status RUN --json` reports each: left to them, not planned again; `apply --wait` follows them to their end',
    ),
  workersConnected: count
    .nullable()
    .describe(
      'workers alive on the ingest queue, read when a run is owed (else `0`); `null`: the queue did not answer',
    ),
  locations: z
    .object({
      add: z
        .array(
          z.object({
            name: z.string().describe('the name it is registered by'),
            lat: z.number().describe('latitude'),
            lng: z.number().describe('longitude'),
            countryCode: z.string().nullable().describe('ISO 3166-1 alpha-2, or `null`'),
            declaredAt: z.string().describe('where the file declares it: `envdata.yaml:12:5`'),
          }),
        )
        .describe('locations apply registers (places geocoded already)'),
      retire: z
        .array(registered)
        .describe('active locations the file no longer declares: retired, their facts kept'),
      restore: z.array(registered).describe('retired locations the file declares again'),
      unchanged: count.describe('declared locations registered and active as declared'),
    })
    .describe('what apply does to the locations, first, in one transaction'),
  history: z
    .array(
      z.object({
        dataset: z.enum(DATASETS).describe('the dataset'),
        from: isoTimestamp.describe('its earliest `since` (a group may start elsewhere)'),
        to: isoTimestamp.describe('the end of the last complete hour, exclusive'),
        hours: count.describe('location-hours missing, not left to an unfinished run'),
        locations: count.describe('locations with hours missing'),
      }),
    )
    .describe(
      'per declared dataset, the history missing between `since` and the last complete hour',
    ),
  plan: planEstimateJson.describe('the one backfill run apply starts for the missing history'),
  ...durationJson,
  ...planCostJson,
  geocodeCalls: count.describe('calls this plan made to geocode places not registered yet'),
  notes: z
    .array(z.string())
    .describe(
      'why less is planned than declared, one sentence each (for people: the wording may change)',
    ),
});

export type DeclaredPlanJson = z.infer<typeof declaredPlanJson>;

/** What `envdata plan` shows, as JSON. */
export function toDeclaredPlanJson(
  plan: DeclaredPlan,
  windowHours: number,
  rateLimits: readonly RateLimitRule[],
  generatedAt: Date,
  cost: PlanCost,
  owed: OwedRuns,
): DeclaredPlanJson {
  const datasets = plan.history.map((h) => h.dataset);
  return {
    kind: 'declared-plan',
    version: 1,
    generatedAt: generatedAt.toISOString(),
    file: plan.fileName,
    digest: plan.digest,
    changes: hasChanges(plan),
    owedRuns: owed.runs.map(toRunJson),
    workersConnected: owed.workers ?? null,
    locations: {
      add: plan.add.map((w) => ({
        name: w.input.name,
        lat: w.input.lat,
        lng: w.input.lng,
        countryCode: w.input.countryCode ?? null,
        declaredAt: w.ref,
      })),
      retire: plan.retire.map((l) => ({ locationId: l.locationId, name: l.name })),
      restore: plan.restore.map((l) => ({ locationId: l.locationId, name: l.name })),
      unchanged: plan.unchanged,
    },
    history: plan.history.map((h) => ({
      dataset: h.dataset,
      from: h.from.toISOString(),
      to: h.to.toISOString(),
      hours: h.hours,
      locations: h.locations,
    })),
    plan: toPlanEstimateJson(plan.estimate, datasets, windowHours),
    ...toDurationJson(plan.estimate.durationMs, rateLimits),
    ...toPlanCostJson(cost),
    geocodeCalls: plan.geocodeCalls,
    notes: [...plan.notes],
  };
}
