import { sql, type Kysely } from 'kysely';
import type { Logger } from '../logging/create-logger.js';
import type { Database } from '../warehouse/schema.js';
import { closeRunIfDone, type ClosedStatus } from './close-run-if-done.js';

export interface RunCloserOptions {
  /** Told of each run closed (`run finished`) and of a deferred close that failed. */
  readonly logger?: Logger;
  /** Takes an error meaning Postgres is down (said once per outage): `true` if so. */
  readonly outages?: { report(error: unknown): boolean };
  /**
   * Called before a running run whose every chunk is finished is checked for closing: what must
   * be in the warehouse before the run says it is done (the ingest job fills the shares set aside
   * for a unit an answer has since told). A failure is logged; the run closes as it stands.
   */
  readonly beforeClose?: (runId: number) => Promise<void>;
}

/** How long a deferred close waits for more of the run's chunks to finish. */
const SETTLE_MS = 100;

/**
 * The one way a run is closed: by the ingest job when its chunks finish, by the feeder when a
 * run's last worker died before closing it, by the sync when it planned nothing. `close` proves
 * the run complete, closes it and refreshes the daily rollups in one transaction
 * (`closeRunIfDone`); `closeSoon` defers that off a job's path, so several chunks finishing close
 * together cost one check.
 */
export class RunCloser {
  // Per run: the pending timer (none while its check runs), and whether a landing came meanwhile.
  private readonly settling = new Map<number, { timer?: NodeJS.Timeout; again: boolean }>();
  private stopped = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: RunCloserOptions = {},
  ) {}

  /** Closes run `runId` if nothing is left of it; returns its new status when this closed it. */
  async close(runId: number): Promise<ClosedStatus | undefined> {
    const { beforeClose } = this.options;
    if (beforeClose && (await everyChunkFinished(this.db, runId))) {
      await beforeClose(runId).catch((error: unknown) => {
        this.options.logger?.warn({ err: error, runId }, 'before closing the run: failed');
      });
    }
    const status = await closeRunIfDone(this.db, runId);
    if (status) this.options.logger?.info({ runId, status }, 'run finished');
    return status;
  }

  /**
   * Closes run `runId` within 100 ms, off the caller's path: checking after every chunk of a busy
   * run costs a query per chunk for nothing. One check per run in flight at a time: a call during
   * a check asks for one more after it, never a pile of them. A failed check is logged (the
   * feeder closes the run later).
   */
  closeSoon(runId: number): void {
    if (this.stopped) return;
    const state = this.settling.get(runId);
    if (state) {
      if (!state.timer) state.again = true;
      return;
    }
    const next: { timer?: NodeJS.Timeout; again: boolean } = { again: false };
    this.settling.set(runId, next);
    next.timer = setTimeout(() => {
      next.timer = undefined;
      this.close(runId)
        .catch((error: unknown) => {
          if (!this.options.outages?.report(error)) {
            this.options.logger?.warn(
              { err: error, runId },
              'could not close the run; the feeder will',
            );
          }
        })
        .finally(() => {
          this.settling.delete(runId);
          if (next.again) this.closeSoon(runId);
        });
    }, SETTLE_MS).unref();
  }

  /** Closes the runs whose deferred check is pending, now; later `closeSoon` calls do nothing. */
  async flush(): Promise<void> {
    this.stopped = true;
    const runs = [...this.settling.keys()];
    for (const { timer } of this.settling.values()) clearTimeout(timer);
    this.settling.clear();
    for (const runId of runs) await this.close(runId);
  }
}

/** Whether run `runId` is running with none of its chunks left to land (index `chunk_run_status`). */
async function everyChunkFinished(db: Kysely<Database>, runId: number): Promise<boolean> {
  const { rows } = await sql<{ finished: boolean }>`
    select not exists (
      select 1 from envdata.chunk
      where run_id = ${runId} and status in ('pending', 'queued', 'running')
    ) as finished
    from envdata.run where run_id = ${runId} and status = 'running'`.execute(db);
  return rows[0]?.finished === true;
}
