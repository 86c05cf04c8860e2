import type { Uses } from '../app/app-resources.js';
import { failedChunkGroups, type FailedChunkGroup } from '../ledger/failed-chunk-groups.js';
import { countUndelivered } from '../ledger/notification-deliveries.js';
import { readFreshness, type Freshness } from '../ledger/read-freshness.js';
import { recentRunIds, runProgress, type RunProgress } from '../ledger/run-progress.js';
import { unplaceableRecords, type UnplaceableRecord } from '../ledger/unplaceable-records.js';
import { collectStatus, type EnvdataStatus } from './collect-status.js';

export interface StatusReportRequest {
  /** One run, with its failed chunks by error code; default the `recentRuns` latest runs. */
  readonly runId?: number | undefined;
  readonly recentRuns: number;
  /** Lag beyond which a location's dataset is stale (ENVDATA_FRESHNESS_MAX_LAG). */
  readonly maxLagHours: number;
}

export interface StatusReport {
  readonly status: EnvdataStatus;
  /** Whether the ledger could be read: Postgres answers and no migration is pending. */
  readonly ledgerRead: boolean;
  /** The run asked for (none when it does not exist), or the recent runs. */
  readonly runs: readonly RunProgress[];
  readonly freshness: readonly Freshness[];
  /** The failures of the run asked for, by error code. */
  readonly failedChunks: readonly FailedChunkGroup[];
  /** The first records of the run asked for that the service sent without a readable hour. */
  readonly unplaceableRecords: readonly UnplaceableRecord[];
  /**
   * Alerts of the last ENVDATA_NOTIFY_MAX_AGE not yet delivered to every target
   * (`countUndelivered`); `null` when the ledger could not be read.
   */
  readonly undeliveredAlerts: number | null;
}

/**
 * `envdata status [RUN]`: the health of Postgres and Redis (`collectStatus`) and, when the ledger
 * can be read, the progress of runs, the freshness of every location and, for one run, its
 * failed chunks and the records it could place in no hour.
 */
export async function collectStatusReport(
  app: Uses<'config' | 'db' | 'queues'>,
  request: StatusReportRequest,
): Promise<StatusReport> {
  const status = await collectStatus(app);
  const ledgerRead = status.postgres.ok && !status.postgres.pendingMigrations?.length;
  if (!ledgerRead)
    return {
      status,
      ledgerRead,
      runs: [],
      freshness: [],
      failedChunks: [],
      unplaceableRecords: [],
      undeliveredAlerts: null,
    };
  const { runId } = request;
  const ids = runId !== undefined ? [runId] : await recentRunIds(app.db, request.recentRuns);
  const runs: RunProgress[] = [];
  for (const id of ids) {
    const progress = await runProgress(app.db, id);
    if (progress) runs.push(progress);
  }
  if (runId !== undefined && runs.length === 0) {
    return {
      status,
      ledgerRead,
      runs,
      freshness: [],
      failedChunks: [],
      unplaceableRecords: [],
      undeliveredAlerts: null,
    };
  }
  return {
    status,
    ledgerRead,
    runs,
    freshness: await readFreshness(app.db, request.maxLagHours),
    failedChunks: runId === undefined ? [] : await failedChunkGroups(app.db, runId),
    unplaceableRecords:
      runId === undefined || runs[0]!.unplaceableRecords === 0
        ? []
        : await unplaceableRecords(app.db, runId),
    undeliveredAlerts: await countUndelivered(app.db, app.config.notify.maxAgeMs),
  };
}
