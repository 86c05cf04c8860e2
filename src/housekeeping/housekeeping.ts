import type { Kysely } from 'kysely';
import { hasSqlState, SQLSTATE } from '../errors/pg-errors.js';
import type { OutageMonitor } from '../lifecycle/outage-monitor.js';
import type { Logger } from '../logging/create-logger.js';
import { foldDoneChunks } from '../ledger/fold-done-chunks.js';
import type { AppComponent } from '../runtime/app-component.js';
import { dropExpiredSnapshots } from '../warehouse/drop-expired-snapshots.js';
import { compactExportMarks } from '../warehouse/export-marks.js';
import { pruneAnswerBodies } from '../warehouse/prune-answer-bodies.js';
import type { Database } from '../warehouse/schema.js';

export interface HousekeepingOptions {
  /** Finished chunks are folded into their run's totals this long after (ENVDATA_CHUNK_RETENTION). */
  readonly chunkRetentionMs: number;
  /** Snapshots are dropped by whole months this long after their fetch; unset: kept (ENVDATA_SNAPSHOT_RETENTION). */
  readonly snapshotRetentionMs?: number | undefined;
  /**
   * Answer bodies whose every answer was fetched longer ago than this many days are deleted;
   * unset: kept (ENVDATA_ARCHIVE_RETENTION_DAYS).
   */
  readonly archiveRetentionDays?: number | undefined;
  /** How often a pass runs, the first at `start()`. Default `HOUSEKEEPING_EVERY_MS`. */
  readonly everyMs?: number;
}

/** How often housekeeping folds finished chunks into their runs and drops expired snapshots. */
export const HOUSEKEEPING_EVERY_MS = 30_000;

/**
 * Keeps the ledger and the snapshots small while workers run: folds chunks finished more than
 * ENVDATA_CHUNK_RETENTION ago into their run's totals (`foldDoneChunks`), and drops the months of
 * snapshots past ENVDATA_SNAPSHOT_RETENTION (`dropExpiredSnapshots`) and the answer bodies past
 * ENVDATA_ARCHIVE_RETENTION_DAYS (`pruneAnswerBodies`), and folds the Parquet export's change marks
 * into one per partition (`compactExportMarks`). A component of the app,
 * started with every worker (`app.start({ worker })`): a pass at start, then one every 30 s.
 * Safe to run in every process on every host (each statement folds or drops once). An outage of
 * Postgres is the process's (`OutageMonitor`): passes wait until it is over.
 */
export class Housekeeping implements AppComponent {
  readonly name = 'housekeeping';
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Whether the last drop of expired snapshots gave up behind a reader (said once). */
  private retentionHeld = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: HousekeepingOptions,
    private readonly logger: Logger,
    private readonly outages?: OutageMonitor,
  ) {}

  /** Runs a pass now and one every `everyMs` until `stop()`. */
  start(): Promise<void> {
    if (this.timer || this.stopped) return Promise.resolve();
    this.timer = setInterval(() => void this.tick(), this.options.everyMs ?? HOUSEKEEPING_EVERY_MS);
    void this.tick();
    return Promise.resolve();
  }

  /** Runs no more passes, and lets the one under way finish (the app bounds the wait). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /**
   * One pass: folds the finished chunks past their retention, then drops the expired months of
   * snapshots (when ENVDATA_SNAPSHOT_RETENTION is set). Concurrent calls share one pass; a
   * failure to fold is thrown, one to drop is logged and waits for the next pass.
   */
  pass(): Promise<void> {
    this.running ??= this.housekeep().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** A pass, its errors logged, not thrown (the next tick tries again). */
  private async tick(): Promise<void> {
    if (this.stopped || this.outages?.ongoing) return;
    try {
      await this.pass();
    } catch (error) {
      if (this.stopped || this.outages?.report(error)) return;
      this.logger.warn({ err: error }, 'could not fold finished chunks; will try again');
    }
  }

  private async housekeep(): Promise<void> {
    const folded = await foldDoneChunks(this.db, this.options.chunkRetentionMs);
    if (folded > 0) this.logger.debug({ folded }, 'finished chunks folded into their runs');
    if (this.options.snapshotRetentionMs !== undefined) {
      await this.dropExpiredSnapshots(this.options.snapshotRetentionMs);
    }
    if (this.options.archiveRetentionDays !== undefined) {
      await this.pruneArchive(this.options.archiveRetentionDays);
    }
    await this.compactExportMarks();
  }

  /** Folds each partition's export marks into one (`compactExportMarks`); a failure waits for the next pass. */
  private async compactExportMarks(): Promise<void> {
    try {
      const folded = await compactExportMarks(this.db);
      if (folded > 0) this.logger.debug({ folded }, 'export marks folded, one per partition');
    } catch (error) {
      this.logger.warn({ err: error }, 'could not fold the export marks; will try again');
    }
  }

  /** Deletes the answer bodies past ENVDATA_ARCHIVE_RETENTION_DAYS; a failure waits for the next pass. */
  private async pruneArchive(retentionDays: number): Promise<void> {
    try {
      const deleted = await pruneAnswerBodies(this.db, retentionDays);
      if (deleted > 0) this.logger.info({ deleted }, 'answer bodies past their retention deleted');
    } catch (error) {
      this.logger.warn(
        { err: error },
        'could not delete answer bodies past their retention; will try again',
      );
    }
  }

  /**
   * Drops the months of snapshots past ENVDATA_SNAPSHOT_RETENTION; a failure waits for the next
   * pass. A drop that gave up behind a reader of the snapshot tables (55P03: a BI report) is said
   * once, however many passes it takes the report to end.
   */
  private async dropExpiredSnapshots(retentionMs: number): Promise<void> {
    try {
      const dropped = await dropExpiredSnapshots(this.db, retentionMs);
      if (dropped.length > 0) this.logger.info({ dropped }, 'expired snapshots dropped');
      this.retentionHeld = false;
    } catch (error) {
      if (!hasSqlState(error, SQLSTATE.lockNotAvailable)) {
        this.logger.warn({ err: error }, 'could not drop expired snapshots; will try again');
      } else if (!this.retentionHeld) {
        this.retentionHeld = true;
        this.logger.info(
          'expired snapshots wait for a reader of the snapshot tables (a long report?) to end: dropping them gave up rather than hold up the stores, and is tried again every pass',
        );
      }
    }
  }
}
