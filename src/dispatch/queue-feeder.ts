import type { Queue } from 'bullmq';
import type { Kysely } from 'kysely';
import type { Logger } from '../logging/create-logger.js';
import {
  materializeChunks,
  undispatchedChunks,
  type DispatchChunk,
  type UnfedRun,
} from '../ledger/materialize-chunks.js';
import { runningRunIds } from '../ledger/reopen-runs.js';
import { chunkRunTraces } from '../ledger/run-traceparents.js';
import { producerSpans, tracingStarted } from '../tracing/tracing.js';
import { fillSetAsideShares } from '../landing/fill-set-aside-shares.js';
import { RunCloser } from '../ledger/run-closer.js';
import type { Database } from '../warehouse/schema.js';
import type { WindowScope } from '../windows/learned-window.js';
import { chunkJob, type IngestJobData } from '../../jobs/ingest-chunk-job.js';
import type { JobRetry } from '../../jobs/job-options.js';

export interface QueueFeederOptions {
  /** At most this many jobs wait in Redis, whatever the size of the plan. */
  readonly maxQueued: number;
  /** How the jobs added are retried. */
  readonly retry: JobRetry;
  /** Holes asked about less than this long ago are not fetched again (ENVDATA_MISSING_RECHECK). */
  readonly recheckMs: number;
  /** "No data" hours answered less than this long ago are not fetched again; 0 never (ENVDATA_NO_DATA_RECHECK). */
  readonly noDataRecheckMs?: number;
  /** The key and address whose learned window sizes the chunks of auto-window runs. */
  readonly windowScope?: WindowScope;
}

/**
 * Feeds the ingest queue from the ledger in bounded batches: Postgres holds the plan, Redis only
 * the next few hundred jobs. When the queue is empty while the ledger still has chunks in flight
 * (Redis restarted or was flushed, a worker died), those chunks are dispatched again; job ids are
 * per chunk, so nothing is ever queued twice. Safe to run in every worker on every host.
 * Folding finished chunks and dropping expired snapshots is housekeeping's (src/housekeeping/).
 */
export class QueueFeeder {
  private running: Promise<number> | undefined;
  private readonly closer: RunCloser;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly queue: Queue<IngestJobData>,
    private readonly options: QueueFeederOptions,
    private readonly logger: Logger,
  ) {
    // As the ingest job's closer: a run says it is done with the shares it set aside for want of
    // a unit filled, once an answer has told it (whichever closes it first).
    this.closer = new RunCloser(db, {
      logger,
      beforeClose: async (runId) => {
        await fillSetAsideShares(db, logger, { runId });
      },
    });
  }

  /** Tops the queue up; concurrent calls share one pass. Returns the jobs added. */
  topUp(): Promise<number> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Dispatches every unfinished chunk of running runs again, in bounded batches (resume). */
  async redispatchAll(): Promise<number> {
    let added = 0;
    let after = 0;
    for (;;) {
      const chunks = await undispatchedChunks(this.db, 1_000, after);
      if (chunks.length === 0) return added;
      after = chunks.at(-1)!.chunkId;
      added += await this.add(chunks);
    }
  }

  private async pass(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
    const queued = (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
    const room = this.options.maxQueued - queued;
    if (room < this.options.maxQueued / 2) {
      // A full queue of backfill jobs must not hold a sync back: urgent chunks may overfill the
      // queue by a quarter, and jump ahead of the backfill's prioritized jobs.
      const reserve =
        Math.ceil(this.options.maxQueued / 4) - Math.max(0, queued - this.options.maxQueued);
      return this.add(await this.materialize(reserve, true));
    }
    let added = 0;
    const idle = queued + (counts.active ?? 0) === 0;
    if (idle) {
      // Nothing in Redis at all: whatever the ledger has in flight was lost with it.
      added += await this.add(await undispatchedChunks(this.db, room));
    }
    added += await this.add(await this.materialize(room - added, false));
    if (idle && added === 0) await this.finishIdleRuns();
    if (added > 0) this.logger.debug({ added, queued }, 'queue topped up');
    return added;
  }

  private materialize(limit: number, urgentOnly: boolean): Promise<DispatchChunk[]> {
    return materializeChunks(this.db, limit, {
      urgentOnly,
      recheckMs: this.options.recheckMs,
      ...(this.options.noDataRecheckMs !== undefined && {
        noDataRecheckMs: this.options.noDataRecheckMs,
      }),
      ...(this.options.windowScope && { windowScope: this.options.windowScope }),
      onUnfed: (run: UnfedRun) =>
        this.logger.error({ runId: run.runId }, `run ${run.runId} failed: ${run.reason}`),
    });
  }

  /** Closes running runs with nothing left to do (their last worker died before closing them). */
  private async finishIdleRuns(): Promise<void> {
    for (const runId of await runningRunIds(this.db)) {
      // One run that cannot be closed must not keep the others open.
      try {
        await this.closer.close(runId);
      } catch (error) {
        this.logger.warn({ err: error, runId }, 'could not close the run; will try again');
      }
    }
  }

  /**
   * Adds one job per chunk (a no-op for a chunk whose job is already in Redis). Urgent chunks
   * (a sync) go before every backfill job. While tracing runs, each job starts its chunk's trace:
   * an `envdata.chunk.enqueue` span (PRODUCER), linked to the run's plan, whose context the job
   * carries (`opts.telemetry.metadata`) to the worker that takes it.
   */
  async add(chunks: readonly (number | DispatchChunk)[]): Promise<number> {
    if (chunks.length === 0) return 0;
    const jobs = chunks.map((chunk) =>
      chunkJob(
        typeof chunk === 'number' ? { chunkId: chunk, urgent: false } : chunk,
        this.options.retry,
      ),
    );
    if (!tracingStarted()) {
      await this.queue.addBulk(jobs);
      return chunks.length;
    }
    const runs = await chunkRunTraces(
      this.db,
      jobs.map((job) => job.data.chunkId),
    );
    const spans = producerSpans(
      'envdata.chunk.enqueue',
      jobs.map(({ data }) => {
        const run = runs.get(data.chunkId);
        return {
          attributes: {
            'envdata.chunk.id': data.chunkId,
            'envdata.run.id': run?.runId ?? undefined,
            'messaging.system': 'bullmq',
            'messaging.destination.name': this.queue.name,
          },
          link: run?.traceparent,
        };
      }),
    );
    try {
      await this.queue.addBulk(
        jobs.map((job, i) => {
          const metadata = spans.metadata[i];
          return metadata === undefined
            ? job
            : { ...job, opts: { ...job.opts, telemetry: { metadata } } };
        }),
      );
    } catch (error) {
      spans.end(error);
      throw error;
    }
    spans.end();
    return chunks.length;
  }
}
