import type { Kysely } from 'kysely';
import type { RateLimitRule } from '../config/rate-limit.js';
import type { Location } from '../locations/location.js';
import type { Dataset } from '../types.js';
import type { Database, RunKind } from '../warehouse/schema.js';
import { settledWindow, START_WINDOW_HOURS, type WindowScope } from '../windows/learned-window.js';
import { countHours, countWindows } from '../windows/tile-windows.js';
import { readHistoryWindow } from '../ledger/history-window.js';
import { estimateDurationMs, rowsPerHour } from './estimate-plan.js';
import { explainPlan, KNOWN_ACCEPTED_WINDOW_HOURS } from './explain-plan.js';
import { createRunWithGaps } from '../ledger/create-run-with-gaps.js';
import { findGaps, type Gap, type NoDataRecheck } from '../ledger/find-gaps.js';
import { lockPlanning } from '../ledger/lock-planning.js';
import { openRunPlans } from '../ledger/open-run-plans.js';
import { describeOverlap, leaveOpenPlans, type PlanOverlap } from './leave-open-plans.js';

const DEFAULT_RECHECK_MS = 24 * 3_600_000;

export interface RunRequest {
  readonly kind: RunKind;
  readonly datasets: readonly Dataset[];
  readonly locations: readonly Location[];
  readonly from: Date;
  readonly to: Date;
  readonly windowHours: number;
  /**
   * ENVDATA_HISTORY_WINDOW=auto: chunks are sized by the window learned for the key and dataset
   * (`src/windows/learned-window.ts`) as they are materialized; `windowHours` is unused then.
   */
  readonly windowAuto?: boolean;
  /** Higher runs are dispatched first (a nightly sync before a long backfill). */
  readonly priority?: number;
  /** Holes asked about less than this long ago are not planned again (ENVDATA_MISSING_RECHECK). */
  readonly recheckMs?: number;
  /**
   * Hours answered "no data" less than this long ago are not planned again; 0 never
   * (ENVDATA_NO_DATA_RECHECK). `'force'` (`backfill --recheck-no-data`) plans every one of them
   * in the range, and the run re-reads them even if they were answered meanwhile.
   */
  readonly noDataRecheckMs?: NoDataRecheck;
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
  /** History requests at the 48 h window every plan accepts: what a fixed 48 h window costs. */
  readonly callsAt48h: number;
  /** The chunks are sized by the learned window (`windowHours` of each dataset below). */
  readonly windowAuto: boolean;
  readonly expectedRows: number;
  readonly durationMs: number;
  readonly byDataset: Readonly<Partial<Record<Dataset, DatasetEstimate>>>;
}

/** One dataset's share of a plan. */
export interface DatasetEstimate {
  readonly chunks: number;
  readonly expectedRows: number;
  /** Hours per chunk: the learned window with `windowAuto` (48 h while nothing is learned). */
  readonly windowHours: number;
}

/** Hours per chunk by dataset when they differ from the request's (the learned windows). */
export type WindowHoursByDataset = Readonly<Partial<Record<Dataset, number>>>;

/** Counts what a set of gaps will cost, without materializing a single chunk. */
export function estimateGaps(
  gaps: readonly Gap[],
  request: Pick<RunRequest, 'locations' | 'windowHours' | 'windowAuto'>,
  rateLimits: readonly RateLimitRule[],
  learned: WindowHoursByDataset = {},
): PlanEstimate {
  const regions = new Map(request.locations.map((l) => [l.locationId, l.pollenRegion]));
  const byDataset: Partial<
    Record<Dataset, { chunks: number; expectedRows: number; windowHours: number }>
  > = {};
  const auto = request.windowAuto ?? false;
  let chunks = 0;
  let expectedRows = 0;
  let calls = 0;
  let callsAt48h = 0;
  const acceptedHours = Math.min(request.windowHours, KNOWN_ACCEPTED_WINDOW_HOURS);
  for (const gap of gaps) {
    const hours = countHours(gap.from, gap.to);
    // A learned window is laid from the gap's start (`tileFrom`), a fixed one on the UTC grid.
    const windowHours = auto ? (learned[gap.dataset] ?? START_WINDOW_HOURS) : request.windowHours;
    const n = auto ? Math.ceil(hours / windowHours) : countWindows(gap.from, gap.to, windowHours);
    calls += auto ? n : countWindows(gap.from, gap.to, acceptedHours);
    callsAt48h += countWindows(gap.from, gap.to, KNOWN_ACCEPTED_WINDOW_HOURS);
    const rows = hours * rowsPerHour(gap.dataset, regions.get(gap.locationId) ?? 'rest_of_world');
    chunks += n;
    expectedRows += rows;
    const d = (byDataset[gap.dataset] ??= { chunks: 0, expectedRows: 0, windowHours });
    d.chunks += n;
    d.expectedRows += rows;
  }
  return {
    gaps: gaps.length,
    chunks,
    calls,
    callsAt48h,
    windowAuto: auto,
    expectedRows,
    durationMs: estimateDurationMs(calls, rateLimits),
    byDataset,
  };
}

/**
 * The window each dataset's chunks would be planned with now at `scope`: the accepted window
 * learned so far, else the first one (48 h).
 */
export async function learnedWindowHours(
  db: Kysely<Database>,
  datasets: readonly Dataset[],
  scope: WindowScope | undefined,
): Promise<WindowHoursByDataset> {
  const learned: Partial<Record<Dataset, number>> = {};
  for (const dataset of datasets) {
    learned[dataset] = scope
      ? settledWindow(await readHistoryWindow(db, scope, dataset))
      : START_WINDOW_HOURS;
  }
  return learned;
}

/** A plan: `runId` undefined when nothing was written (a dry run, nothing to fetch). */
export interface PlannedRun {
  readonly runId: number | undefined;
  readonly estimate: PlanEstimate;
  readonly gaps: readonly Gap[];
  /** Why the plan is smaller than the range asked for (`explainPlan`, `describeOverlap`). */
  readonly notes: readonly string[];
  /** Hours of the range left to unfinished runs, by run (with `leaveOpenRuns`). */
  readonly overlaps: readonly PlanOverlap[];
}

/**
 * Plans a run: the gaps of every dataset and location (requested range, clipped to coverage,
 * minus what the ledger holds as done) are written to Postgres with a cursor each. Chunks are
 * materialized from them later, in bounded batches (`materializeChunks`). With `dryRun`, or when
 * there is nothing to fetch, nothing is written (`runId` undefined); `notes` say why a plan is
 * smaller than the range asked for. Plans that write are serialised (a transaction-level
 * advisory lock held to the commit).
 */
export async function planRun(
  db: Kysely<Database>,
  request: RunRequest,
  rateLimits: readonly RateLimitRule[],
  options: {
    dryRun?: boolean;
    /** The key and address whose learned window the estimate of an auto-window run uses. */
    windowScope?: WindowScope;
    /**
     * Leave out the hours unfinished runs will fetch (`openRunPlans`), with a note per run: what
     * a backfill does, so that no hour is paid for twice.
     */
    leaveOpenRuns?: boolean;
    /**
     * What the same command given again finds the run by (`findRunningBackfill`), recorded in
     * its request with the rest, in the one insert: never a run another command cannot find.
     */
    signature?: Record<string, unknown>;
    /** The W3C `traceparent` of the span planning it, kept on the run (its chunks link to it). */
    traceparent?: string | null;
  } = {},
): Promise<PlannedRun> {
  for (const [name, date] of [
    ['from', request.from],
    ['to', request.to],
  ] as const) {
    if (date.getTime() % 3_600_000 !== 0) {
      throw new RangeError(`a run's ${name} must be a whole UTC hour (got ${date.toISOString()})`);
    }
  }
  const plan = async (db: Kysely<Database>): Promise<PlannedRun> => {
    const found = await findGaps(db, {
      datasets: request.datasets,
      locationIds: request.locations.map((l) => l.locationId),
      from: request.from,
      to: request.to,
      recheckMs: request.recheckMs ?? DEFAULT_RECHECK_MS,
      ...(request.noDataRecheckMs !== undefined && { noDataRecheckMs: request.noDataRecheckMs }),
      ...(request.now && { now: request.now }),
    });
    const { gaps, overlaps } = options.leaveOpenRuns
      ? leaveOpenPlans(
          found,
          await openRunPlans(db, {
            datasets: request.datasets,
            locationIds: request.locations.map((l) => l.locationId),
            from: request.from,
            to: request.to,
          }),
          request.windowHours,
        )
      : { gaps: found, overlaps: [] };
    const learned = request.windowAuto
      ? await learnedWindowHours(db, request.datasets, options.windowScope)
      : {};
    const estimate = estimateGaps(gaps, request, rateLimits, learned);
    const names = new Map(request.locations.map((l) => [l.locationId, l.name]));
    const nameOf = (id: number) => names.get(id) ?? `location ${id}`;
    const notes = [
      ...explainPlan(request, found),
      ...overlaps.flatMap((o) => describeOverlap(o, nameOf)),
    ];
    if (options.dryRun || gaps.length === 0) {
      return { runId: undefined, estimate, gaps, notes, overlaps };
    }

    const runId = await createRunWithGaps(db, {
      kind: request.kind,
      priority: request.priority ?? 0,
      windowHours: request.windowHours,
      windowAuto: request.windowAuto ?? false,
      gaps,
      ...(request.noDataRecheckMs === 'force' && { refetch: true }),
      traceparent: options.traceparent ?? null,
      request: {
        datasets: request.datasets,
        from: request.from.toISOString(),
        to: request.to.toISOString(),
        locations: request.locations.map((l) => l.locationId),
        windowHours: request.windowAuto ? 'auto' : request.windowHours,
        estimate,
        ...options.signature,
      },
    });
    return { runId, estimate, gaps, notes, overlaps };
  };
  if (options.dryRun) return plan(db);
  // One plan at a time, to its commit: two backfills started together never both plan the
  // hours they share (the second sees the first's gaps, `leaveOpenRuns`).
  return db.transaction().execute(async (trx) => {
    await lockPlanning(trx);
    return plan(trx);
  });
}
