import { UnrecoverableError, type Job } from 'bullmq';
import type { Kysely } from 'kysely';
import type { CallBudget } from '../src/dispatch/call-budget.js';
import type { IngestJobData } from '../src/dispatch/ingest-job.js';
import { coerceError } from '../src/errors/coerce-error.js';
import { fetchChunk } from '../src/ingest/fetch-chunk.js';
import {
  blockDataset,
  claimChunk,
  finishRunIfDone,
  recordFailure,
  recordRetry,
  releaseChunk,
  splitChunk,
  stopRun,
} from '../src/ledger/chunk-transitions.js';
import type { Logger } from '../src/logging/create-logger.js';
import type { ServiceClient } from '../src/service/service-client.js';
import { isServiceError } from '../src/service/service-error.js';
import type { ChunkLanding } from '../src/warehouse/fact-writer.js';
import { refreshDailyRollups } from '../src/warehouse/refresh-daily-rollups.js';
import type { Database } from '../src/warehouse/schema.js';

export interface IngestChunkDeps {
  readonly db: Kysely<Database>;
  readonly client: ServiceClient;
  /** Lands one chunk (facts, quarantine, archive and done mark in one transaction). */
  readonly land: (landing: ChunkLanding) => Promise<void>;
  readonly budget: CallBudget;
  readonly logger: Logger;
  readonly maxAttempts: number;
  /** Ask for per-species risk on pollen history (ENVDATA_SPECIES_RISK). */
  readonly speciesRisk: boolean;
  /** Pauses every worker of the queue for `ms` and puts the job back, attempts untouched. */
  readonly pauseAll: (ms: number) => Promise<never>;
  /** Dispatches chunks created while working (the halves of a split). */
  readonly dispatch: (chunkIds: readonly number[]) => Promise<unknown>;
  /** Takes an error meaning Postgres or Redis is down (said once per outage): `true` if so. */
  readonly outages?: { report(error: unknown): boolean };
}

export type IngestOutcome = 'landed' | 'partial' | 'skipped' | 'split' | 'failed';

const MAX_BACKOFF_MS = 60_000;

/**
 * The ingest job: claim the chunk in the ledger, make its one history request, land the rows and
 * the done mark in one transaction. What happens on each error code:
 *
 * - RATE_LIMITED / QUOTA_EXCEEDED: every worker pauses (Retry-After, else a growing backoff with
 *   jitter, never 0); the job goes back without using an attempt.
 * - UNAUTHORIZED: the run stops at once; no retry can fix a refused key.
 * - FORBIDDEN: the chunk fails and the run stops fetching that dataset.
 * - RANGE_TOO_LONG, RESPONSE_TOO_LARGE: the chunk is split into halves (down to one hour), which
 *   are dispatched.
 * - ABORTED (the worker's shutdown deadline): the chunk goes back to `queued`, nothing counted.
 * - PARTIAL: the trimmed rows are kept and the chunk is fetched again.
 * - other retryable codes: exponential backoff with jitter up to `maxAttempts`, then failed.
 * - other codes: the chunk fails with code and message; the run goes on.
 */
export function createIngestChunkProcessor(deps: IngestChunkDeps) {
  const log = deps.logger.child({ component: 'ingest' });
  let throttled = 0;
  let pausedUntil = 0;

  // The 429s of the calls that were already in flight when the first one paused every worker
  // belong to the same burst: they keep that pause rather than doubling it once per call.
  const backoff = (base: number, cap: number) => {
    const now = Date.now();
    if (now < pausedUntil) return pausedUntil - now;
    const ms = Math.round(
      Math.min(cap, base * 2 ** Math.min(throttled++, 12)) * (0.5 + Math.random()),
    );
    pausedUntil = now + ms;
    return ms;
  };

  /** Closes the run if nothing is left of it (and refreshes its rollups). */
  const closeRun = async (runId: number): Promise<void> => {
    // One transaction: a run is seen done only with its days' rollups refreshed.
    const status = await deps.db.transaction().execute(async (trx) => {
      const closed = await finishRunIfDone(trx, runId);
      if (closed) await refreshDailyRollups(trx);
      return closed;
    });
    if (status) log.info({ runId, status }, 'run finished');
  };
  // After a landing, one check per run every 100 ms at most, off the job's path: checking after
  // every chunk of a busy run costs a query per chunk for nothing.
  const settling = new Map<number, NodeJS.Timeout>();
  const settleSoon = (runId: number): void => {
    if (settling.has(runId)) return;
    settling.set(
      runId,
      setTimeout(() => {
        settling.delete(runId);
        closeRun(runId).catch((error: unknown) => {
          if (!deps.outages?.report(error)) {
            log.warn({ err: error, runId }, 'could not close the run; the feeder will');
          }
        });
      }, 100).unref(),
    );
  };

  const process = async (job: Job<IngestJobData>): Promise<IngestOutcome> => {
    const t0 = performance.now();
    const chunk = await claimChunk(deps.db, job.data.chunkId);
    if (!chunk) return 'skipped';
    const attempts = job.attemptsMade + 1;
    const settle = () => closeRun(chunk.runId);

    const wait = await deps.budget.take();
    if (wait > 0) {
      await releaseChunk(deps.db, chunk.chunkId);
      return deps.pauseAll(wait);
    }

    try {
      const t1 = performance.now();
      const landing = await fetchChunk(
        deps.client,
        { ...chunk, attempts },
        { speciesRisk: deps.speciesRisk },
      );
      const t2 = performance.now();
      await deps.land(landing);
      throttled = 0;
      if (!landing.complete) throw Object.assign(new Error('partial'), { partialLanded: true });
      const t3 = performance.now();
      settleSoon(chunk.runId);
      log.debug(
        {
          chunkId: chunk.chunkId,
          claimMs: Math.round(t1 - t0),
          fetchMs: Math.round(t2 - t1),
          landMs: Math.round(t3 - t2),
        },
        'chunk landed',
      );
      return 'landed';
    } catch (thrown) {
      const error = coerceError(thrown);
      const partial = (thrown as { partialLanded?: boolean }).partialLanded === true;
      const code = partial ? 'PARTIAL' : isServiceError(error) ? error.code : 'INTERNAL';
      const message = partial
        ? 'the service trimmed the payload (206); rows kept, the chunk will be fetched again'
        : error.message;

      if (isServiceError(error, 'RATE_LIMITED') || isServiceError(error, 'QUOTA_EXCEEDED')) {
        await releaseChunk(deps.db, chunk.chunkId);
        const quota = error.code === 'QUOTA_EXCEEDED';
        const ms =
          error.retryAfterMs && error.retryAfterMs > 0
            ? error.retryAfterMs
            : backoff(quota ? 60_000 : 1_000, quota ? 3_600_000 : MAX_BACKOFF_MS);
        log.warn({ chunkId: chunk.chunkId, code, pauseMs: ms }, 'throttled: pausing all workers');
        return deps.pauseAll(ms);
      }
      if (isServiceError(error, 'UNAUTHORIZED')) {
        await releaseChunk(deps.db, chunk.chunkId);
        await stopRun(deps.db, chunk.runId, code, error.message);
        log.error({ runId: chunk.runId }, error.message);
        throw new UnrecoverableError(error.message);
      }
      if (isServiceError(error, 'FORBIDDEN')) {
        await recordFailure(deps.db, chunk.chunkId, attempts, code, error.message);
        await blockDataset(deps.db, chunk.runId, chunk.dataset, error.message);
        await settle();
        throw new UnrecoverableError(error.message);
      }
      if (isServiceError(error, 'RANGE_TOO_LONG')) {
        const halves = await splitChunk(deps.db, chunk, attempts);
        if (halves.length > 0) {
          await deps.dispatch(halves);
          return 'split';
        }
        await recordFailure(deps.db, chunk.chunkId, attempts, code, error.message);
        await settle();
        return 'failed';
      }
      if (isServiceError(error, 'RESPONSE_TOO_LARGE')) {
        // A shorter window means a smaller answer: split like a range the service refuses.
        const halves = await splitChunk(deps.db, chunk, attempts, 'RESPONSE_TOO_LARGE');
        if (halves.length > 0) {
          await deps.dispatch(halves);
          return 'split';
        }
        const last = `${error.message} (one hour is the shortest window: only a higher limit helps)`;
        await recordFailure(deps.db, chunk.chunkId, attempts, code, last);
        await settle();
        return 'failed';
      }
      if (isServiceError(error, 'ABORTED')) {
        // The worker is shutting down: the chunk goes back, untouched, for another worker.
        await releaseChunk(deps.db, chunk.chunkId);
        throw error;
      }
      const retryable = partial || !isServiceError(error) || error.retryable;
      // A trimmed answer's call was counted when its rows landed.
      const madeCall = !partial;
      if (retryable && attempts < deps.maxAttempts) {
        await recordRetry(deps.db, chunk.chunkId, attempts, code, message, madeCall);
        log.warn({ chunkId: chunk.chunkId, code, attempts }, 'will retry');
        throw error;
      }
      await recordFailure(deps.db, chunk.chunkId, attempts, code, message, madeCall);
      await settle();
      log.warn({ chunkId: chunk.chunkId, code, attempts }, 'chunk failed');
      return 'failed';
    }
  };

  /** Closes the runs whose check is pending; call before closing the database. */
  const close = async (): Promise<void> => {
    const runs = [...settling.keys()];
    for (const timer of settling.values()) clearTimeout(timer);
    settling.clear();
    for (const runId of runs) await closeRun(runId);
  };

  return { process, close };
}
