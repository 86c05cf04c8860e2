import type { Kysely } from 'kysely';
import type { RateLimitRule } from '../config/rate-limit.js';
import type { Location } from '../locations/location.js';
import type { Dataset } from '../types.js';
import type { Database, RunKind } from '../warehouse/schema.js';
import { countHours, countWindows } from '../windows/tile-windows.js';
import { estimateDurationMs, rowsPerHour } from './estimate-plan.js';
import { explainPlan, KNOWN_ACCEPTED_WINDOW_HOURS } from './explain-plan.js';
import { createRunWithGaps } from '../ledger/create-run-with-gaps.js';
import { findGaps, type Gap } from '../ledger/find-gaps.js';

const DEFAULT_RECHECK_MS = 24 * 3_600_000;

export interface RunRequest {
  readonly kind: RunKind;
  readonly datasets: readonly Dataset[];
  readonly locations: readonly Location[];
  readonly from: Date;
  readonly to: Date;
  readonly windowHours: number;
  /** Higher runs are dispatched first (a nightly sync before a long backfill). */
  readonly priority?: number;
  /** Holes asked about less than this long ago are not planned again (ENVDATA_MISSING_RECHECK). */
  readonly recheckMs?: number;
  readonly now?: Date;
}

export interface PlanEstimate {
  readonly gaps: number;
  readonly chunks: number;
  /**
   * History requests: one per chunk at the window the service is known to accept (48 h); a longer
   * window it refuses is split, so a longer `--window` is counted at 48 h.
   */
  readonly calls: number;
  readonly expectedRows: number;
  readonly durationMs: number;
  readonly byDataset: Readonly<Partial<Record<Dataset, { chunks: number; expectedRows: number }>>>;
}

/** Counts what a set of gaps will cost, without materializing a single chunk. */
export function estimateGaps(
  gaps: readonly Gap[],
  request: Pick<RunRequest, 'locations' | 'windowHours'>,
  rateLimits: readonly RateLimitRule[],
): PlanEstimate {
  const regions = new Map(request.locations.map((l) => [l.locationId, l.pollenRegion]));
  const byDataset: Partial<Record<Dataset, { chunks: number; expectedRows: number }>> = {};
  let chunks = 0;
  let expectedRows = 0;
  let calls = 0;
  const acceptedHours = Math.min(request.windowHours, KNOWN_ACCEPTED_WINDOW_HOURS);
  for (const gap of gaps) {
    const n = countWindows(gap.from, gap.to, request.windowHours);
    calls += countWindows(gap.from, gap.to, acceptedHours);
    const rows =
      countHours(gap.from, gap.to) *
      rowsPerHour(gap.dataset, regions.get(gap.locationId) ?? 'rest_of_world');
    chunks += n;
    expectedRows += rows;
    const d = (byDataset[gap.dataset] ??= { chunks: 0, expectedRows: 0 });
    d.chunks += n;
    d.expectedRows += rows;
  }
  return {
    gaps: gaps.length,
    chunks,
    calls,
    expectedRows,
    durationMs: estimateDurationMs(calls, rateLimits),
    byDataset,
  };
}

/**
 * Plans a run: the gaps of every dataset and location (requested range, clipped to coverage,
 * minus what the ledger holds as done) are written to Postgres with a cursor each. Chunks are
 * materialized from them later, in bounded batches (`materializeChunks`). With `dryRun`, or when
 * there is nothing to fetch, nothing is written (`runId` undefined); `notes` say why a plan is
 * smaller than the range asked for.
 */
export async function planRun(
  db: Kysely<Database>,
  request: RunRequest,
  rateLimits: readonly RateLimitRule[],
  options: { dryRun?: boolean } = {},
): Promise<{
  runId: number | undefined;
  estimate: PlanEstimate;
  gaps: readonly Gap[];
  notes: readonly string[];
}> {
  for (const [name, date] of [
    ['from', request.from],
    ['to', request.to],
  ] as const) {
    if (date.getTime() % 3_600_000 !== 0) {
      throw new RangeError(`a run's ${name} must be a whole UTC hour (got ${date.toISOString()})`);
    }
  }
  const gaps = await findGaps(db, {
    datasets: request.datasets,
    locationIds: request.locations.map((l) => l.locationId),
    from: request.from,
    to: request.to,
    recheckMs: request.recheckMs ?? DEFAULT_RECHECK_MS,
    ...(request.now && { now: request.now }),
  });
  const estimate = estimateGaps(gaps, request, rateLimits);
  const notes = explainPlan(request, gaps);
  if (options.dryRun || gaps.length === 0) return { runId: undefined, estimate, gaps, notes };

  const runId = await createRunWithGaps(db, {
    kind: request.kind,
    priority: request.priority ?? 0,
    windowHours: request.windowHours,
    gaps,
    request: {
      datasets: request.datasets,
      from: request.from.toISOString(),
      to: request.to.toISOString(),
      locations: request.locations.map((l) => l.locationId),
      windowHours: request.windowHours,
      estimate,
    },
  });
  return { runId, estimate, gaps, notes };
}
