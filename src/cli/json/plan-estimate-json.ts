import { z } from 'zod';
import type { RateLimitRule } from '../../config/rate-limit.js';
import { DATASETS, type Dataset } from '../../types.js';
import type { PlanEstimate } from '../../planner/plan-run.js';
import { byDataset } from './by-dataset.js';
import { count } from './json-document.js';

/** What a plan of history costs (`estimateGaps`), as the dry runs' `--json` report it. */
export const planEstimateJson = z.object({
  gaps: count.describe(
    'ranges of hours to fetch: per location and dataset, the range minus what the ledger holds',
  ),
  chunks: count.describe('chunks the plan creates: one per window of `windowHours`'),
  calls: count.describe(
    'history requests: one per chunk at the 48 h window the service is known to accept (a longer fixed window is counted at 48 h); with a learned window (`windowAuto`), one per chunk at the window learned so far',
  ),
  callsAt48h: count.describe(
    'history requests at the 48 h window every plan accepts: what the plan costs without a learned window',
  ),
  windowAuto: z
    .boolean()
    .describe(
      'chunks are sized by the window learned per key and dataset (ENVDATA_HISTORY_WINDOW=auto)',
    ),
  expectedRows: count.describe('fact rows the plan should land'),
  byDataset: z
    .record(
      z.enum(DATASETS).meta({ title: 'dataset' }),
      z
        .object({
          chunks: count.describe('chunks of this dataset'),
          expectedRows: count.describe('fact rows of this dataset'),
          windowHours: count.describe(
            'hours per chunk of this dataset: with `windowAuto`, the window learned so far (48 before anything is learned)',
          ),
        })
        .nullable()
        .describe('that dataset’s share; `null` when it was not asked for'),
    )
    .describe('the same by dataset (`pollen`, `weather`); `null` for a dataset not asked for'),
});

/** How long the calls take at the configured rate limits. */
export const durationJson = {
  durationMs: count
    .nullable()
    .describe(
      'how long the calls take at the rate limits, in milliseconds; `null` without a rate limit (ENVDATA_RATE_LIMIT=off), when the service’s speed decides',
    ),
  rateLimits: z
    .array(z.string())
    .describe('ENVDATA_RATE_LIMIT’s rules, e.g. `["10/s", "5000/day"]`; `[]` when off'),
};

export type PlanEstimateJson = z.infer<typeof planEstimateJson>;

/** `estimate` as JSON; datasets outside `asked` are `null`. */
export function toPlanEstimateJson(
  estimate: PlanEstimate,
  asked: readonly Dataset[],
  windowHours: number,
): PlanEstimateJson {
  return {
    gaps: estimate.gaps,
    chunks: estimate.chunks,
    calls: estimate.calls,
    callsAt48h: estimate.callsAt48h,
    windowAuto: estimate.windowAuto,
    expectedRows: estimate.expectedRows,
    byDataset: byDataset((dataset) =>
      asked.includes(dataset)
        ? {
            chunks: estimate.byDataset[dataset]?.chunks ?? 0,
            expectedRows: estimate.byDataset[dataset]?.expectedRows ?? 0,
            windowHours: estimate.byDataset[dataset]?.windowHours ?? windowHours,
          }
        : null,
    ),
  };
}

/** The duration of `durationMs` at `rules` as JSON: `null` when nothing limits the rate. */
export function toDurationJson(
  durationMs: number,
  rules: readonly RateLimitRule[],
): { durationMs: number | null; rateLimits: string[] } {
  return {
    durationMs: rules.length === 0 ? null : durationMs,
    rateLimits: rules.map((r) => r.label),
  };
}
