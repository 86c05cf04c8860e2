import { sql } from 'kysely';
import type { App } from '../app.js';
import { createFeeder } from '../dispatch/create-feeder.js';
import type { Location } from '../locations/location.js';
import { planRun, type PlanEstimate } from '../planner/plan-run.js';
import type { Dataset } from '../types.js';

export interface BackfillRequest {
  readonly datasets: readonly Dataset[];
  readonly locations: readonly Location[];
  readonly from: Date;
  readonly to: Date;
  readonly windowHours: number;
}

export interface BackfillStart {
  readonly runId: number | undefined;
  readonly estimate: PlanEstimate;
  /** The same backfill was already running: it was resumed instead of planned again. */
  readonly resumed: boolean;
}

/**
 * `envdata backfill`: plans the run (requested range minus what the ledger holds as done) and
 * puts its first chunks on the queue. The same request while its run is still running resumes
 * that run instead: its unfinished chunks are dispatched again (after a Redis loss, say).
 */
export async function startBackfill(
  app: App,
  request: BackfillRequest,
  options: { dryRun?: boolean } = {},
): Promise<BackfillStart> {
  const signature = {
    datasets: [...request.datasets].sort(),
    from: request.from.toISOString(),
    to: request.to.toISOString(),
    locations: request.locations.map((l) => l.locationId).sort((a, b) => a - b),
    windowHours: request.windowHours,
  };
  if (!options.dryRun) {
    const same = await app.db
      .selectFrom('run')
      .select('run_id')
      .where('kind', '=', 'backfill')
      .where('status', '=', 'running')
      .where(sql<boolean>`request @> ${JSON.stringify(signature)}::jsonb`)
      .orderBy('run_id', 'desc')
      .executeTakeFirst();
    if (same) {
      const feeder = createFeeder(app);
      await feeder.redispatchAll();
      await feeder.topUp();
      const estimate = await planRun(
        app.db,
        { kind: 'backfill', ...request },
        app.config.rateLimits,
        { dryRun: true },
      );
      return { runId: same.run_id, estimate: estimate.estimate, resumed: true };
    }
  }
  const { runId, estimate } = await planRun(
    app.db,
    { kind: 'backfill', ...request, locations: request.locations },
    app.config.rateLimits,
    options,
  );
  if (runId !== undefined) {
    await app.db
      .updateTable('run')
      .set({ request: sql`request || ${JSON.stringify(signature)}::jsonb` })
      .where('run_id', '=', runId)
      .execute();
    await createFeeder(app).topUp();
  }
  return { runId, estimate, resumed: false };
}
