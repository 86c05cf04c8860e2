import type { Uses } from '../runtime/app-resources.js';
import { historyWindowScope } from '../dispatch/history-window-scope.js';
import { createFeeder } from '../dispatch/create-feeder.js';
import { findRunningBackfill } from '../ledger/find-running-backfill.js';
import type { PlanOverlap } from '../planner/leave-open-plans.js';
import { planRun, type PlanEstimate, type RunRequest } from '../planner/plan-run.js';
import { inSpan, traceparentOf } from '../tracing/tracing.js';

/** What `envdata backfill` asks for: a run request, of kind `backfill`, at the default priority. */
export type BackfillRequest = Pick<
  RunRequest,
  'datasets' | 'locations' | 'from' | 'to' | 'windowHours' | 'windowAuto'
> & {
  /** Ask again every hour of the range answered "no data", however recently (`--recheck-no-data`). */
  readonly recheckNoData?: boolean;
};

export interface BackfillStart {
  /** `undefined`: a dry run, or nothing to fetch (no run is written). */
  readonly runId: number | undefined;
  readonly estimate: PlanEstimate;
  /** The same backfill was already running: it was resumed instead of planned again. */
  readonly resumed: boolean;
  /** Why the plan is smaller than the range asked for (`explainPlan`, `describeOverlap`). */
  readonly notes: readonly string[];
  /** Hours of the range left to unfinished runs that will fetch them, by run. */
  readonly overlaps: readonly PlanOverlap[];
}

/**
 * `envdata backfill`: plans the run (requested range minus what the ledger holds as done, and
 * minus what unfinished runs will fetch: `notes` name them) and puts its first chunks on the
 * queue. The same request while its run is still running resumes
 * that run instead: its unfinished chunks are dispatched again (after a Redis loss, say).
 */
export async function startBackfill(
  app: Uses<'config' | 'db' | 'logger' | 'queues'>,
  request: BackfillRequest,
  options: { dryRun?: boolean } = {},
): Promise<BackfillStart> {
  const { recheckNoData, ...runRequest } = request;
  const signature = {
    datasets: [...request.datasets].sort(),
    from: request.from.toISOString(),
    to: request.to.toISOString(),
    locations: request.locations.map((l) => l.locationId).sort((a, b) => a - b),
    windowHours: request.windowAuto ? 'auto' : request.windowHours,
    ...(recheckNoData && { recheckNoData: true }),
  };
  const windowScope = historyWindowScope(app.config);
  const rechecks = {
    recheckMs: app.config.ingest.recheckMs,
    noDataRecheckMs: recheckNoData ? ('force' as const) : app.config.ingest.noDataRecheckMs,
  };
  if (!options.dryRun) {
    const same = await findRunningBackfill(app.db, signature);
    if (same !== undefined) {
      const feeder = createFeeder(app);
      await feeder.redispatchAll();
      await feeder.topUp();
      const estimate = await planRun(
        app.db,
        { kind: 'backfill', ...runRequest, ...rechecks },
        app.config.rateLimits,
        { dryRun: true, ...(windowScope && { windowScope }) },
      );
      return {
        runId: same,
        estimate: estimate.estimate,
        resumed: true,
        notes: estimate.notes,
        overlaps: [],
      };
    }
  }
  // Hours an unfinished run (running, paused) will fetch are left to it, and said so. A run
  // planned is the trace its chunks link to (`envdata.run.plan`, kept on the run's row).
  const plan = async (traceparent: string | null = null): Promise<BackfillStart> => {
    const { runId, estimate, notes, overlaps } = await planRun(
      app.db,
      { kind: 'backfill', ...runRequest, ...rechecks },
      app.config.rateLimits,
      {
        ...options,
        leaveOpenRuns: true,
        signature,
        traceparent,
        ...(windowScope && { windowScope }),
      },
    );
    if (runId !== undefined) await createFeeder(app).topUp();
    return { runId, estimate, resumed: false, notes, overlaps };
  };
  if (options.dryRun) return plan();
  return inSpan(
    'envdata.run.plan',
    async (span) => {
      const start = await plan(traceparentOf(span.scope));
      span.setAttributes({
        'envdata.run.id': start.runId,
        'envdata.run.chunks': start.estimate.chunks,
        'envdata.run.calls': start.estimate.calls,
      });
      return start;
    },
    { attributes: { 'envdata.run.kind': 'backfill' } },
  );
}
