import { admissionStores } from '../admission/admission-stores.js';
import type { Uses } from '../runtime/app-resources.js';
import { failedChunkGroups, type FailedChunkGroup } from '../ledger/failed-chunk-groups.js';
import { countUndelivered } from '../ledger/notification-deliveries.js';
import { readArchiveSize, type ArchiveSize } from '../ledger/archive-size.js';
import { readExportStatus, type ExportStatus } from '../export/export-status.js';
import { readFreshness, type Freshness } from '../ledger/read-freshness.js';
import { readRunProgress, recentRunIds, type RunProgress } from '../ledger/run-progress.js';
import { unplaceableRecords, type UnplaceableRecord } from '../ledger/unplaceable-records.js';
import { valuesSetAside, type SetAsideGroup } from '../ledger/values-set-aside.js';
import { isEnvdataError } from '../errors/envdata-error.js';
import { readQuotaUsage, type QuotaUsage } from '../admission/quota-usage.js';
import { collectStatus, type EnvdataStatus } from './collect-status.js';
import { withQueueWaiting } from './run-waiting.js';

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
   * Values set aside in the whole warehouse, whatever run (or rebuild) set them aside
   * (`valuesSetAside`); `[]` for one run (its own are `runs[0].setAside`) or when the ledger
   * could not be read.
   */
  readonly setAside: readonly SetAsideGroup[];
  /**
   * Each configured quota's (and the budget's) use of its window; `[]` without one, `null` when
   * the counters (a table of the warehouse) could not be read.
   */
  readonly quota: readonly QuotaUsage[] | null;
  /**
   * Alerts of the last ENVDATA_NOTIFY_MAX_AGE not yet delivered to every target
   * (`countUndelivered`); `null` when the ledger could not be read.
   */
  readonly undeliveredAlerts: number | null;
  /**
   * The raw archive's size (`readArchiveSize`) for the overview; `null` for one run or when the
   * ledger could not be read.
   */
  readonly archive: ArchiveSize | null;
  /**
   * The last Parquet export that finished and how far the warehouse moved since
   * (`readExportStatus`); absent for one run, when the ledger could not be read or no export
   * ever finished.
   */
  readonly lastExport?: ExportStatus;
}

/**
 * The quota counters' reading (`envdata.quota_usage`, on either queue backend: Redis lost or
 * down changes nothing of it), `null` when the warehouse cannot be read.
 */
async function readQuota(app: Uses<'config' | 'queues'>): Promise<readonly QuotaUsage[] | null> {
  try {
    return await readQuotaUsage(admissionStores(app.queues).quota, app.config.quota);
  } catch (error) {
    if (isEnvdataError(error)) return null;
    throw error;
  }
}

/**
 * `envdata status [RUN]`: the health of Postgres and Redis (`collectStatus`) and, when the ledger
 * can be read, the progress of runs (with what holds each, `queueWaiting`), the freshness of
 * every location and, for one run, its failed chunks and the records it could place in no hour.
 */
export async function collectStatusReport(
  app: Uses<'config' | 'db' | 'queues'>,
  request: StatusReportRequest,
): Promise<StatusReport> {
  const status = await collectStatus(app);
  const ledgerRead = status.postgres.ok && !status.postgres.pendingMigrations?.length;
  // The counters are a table of the warehouse: read once it is migrated.
  const quota = ledgerRead ? await readQuota(app) : null;
  if (!ledgerRead)
    return {
      status,
      ledgerRead,
      runs: [],
      freshness: [],
      failedChunks: [],
      unplaceableRecords: [],
      setAside: [],
      quota,
      undeliveredAlerts: null,
      archive: null,
    };
  const { runId } = request;
  const ids = runId !== undefined ? [runId] : await recentRunIds(app.db, request.recentRuns);
  // What the queue adds to the ledger's holds: the pause of every worker, no worker connected.
  const holds = status.redis.ok
    ? { pausedUntil: status.redis.pausedUntil ?? null, workers: status.redis.workers?.length }
    : { pausedUntil: null, workers: undefined };
  const runs = (await readRunProgress(app.db, ids)).map((p) => withQueueWaiting(p, holds));
  if (runId !== undefined && runs.length === 0) {
    return {
      status,
      ledgerRead,
      runs,
      freshness: [],
      failedChunks: [],
      unplaceableRecords: [],
      setAside: [],
      quota,
      undeliveredAlerts: null,
      archive: null,
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
    setAside: runId === undefined ? await valuesSetAside(app.db) : [],
    quota,
    undeliveredAlerts: await countUndelivered(app.db, app.config.notify.maxAgeMs),
    archive: runId === undefined ? await readArchiveSize(app.db) : null,
    ...(runId === undefined && { lastExport: await readExportStatus(app.db) }),
  };
}
