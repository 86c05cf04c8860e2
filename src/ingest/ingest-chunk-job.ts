import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { Kysely } from 'kysely';
import type { CallBudget } from '../dispatch/call-budget.js';
import type { IngestJobData } from '../dispatch/ingest-job.js';
import { coerceError } from '../errors/coerce-error.js';
import { fetchChunk } from './fetch-chunk.js';
import { blockDataset } from '../ledger/block-dataset.js';
import { claimChunk } from '../ledger/claim-chunk.js';
import { closeRunIfDone } from '../ledger/close-run-if-done.js';
import { recordChunkError } from '../ledger/record-chunk-error.js';
import { releaseChunk } from '../ledger/release-chunk.js';
import { splitChunk } from '../ledger/split-chunk.js';
import { stopRun } from '../ledger/stop-run.js';
import type { Logger } from '../logging/create-logger.js';
import type { ServiceClient } from '../service/service-client.js';
import { isServiceError } from '../service/service-error.js';
import type { ChunkLanding, LandingResult } from '../warehouse/fact-writer.js';
import type { Database } from '../warehouse/schema.js';
import { WrongAddressGuard } from './wrong-address-guard.js';

export interface IngestChunkDeps {
  readonly db: Kysely<Database>;
  readonly client: ServiceClient;
  /** Lands one chunk (facts, quarantine, archive, coverage and chunk state in one transaction). */
  readonly land: (landing: ChunkLanding) => Promise<LandingResult>;
  readonly budget: CallBudget;
  readonly logger: Logger;
  readonly maxAttempts: number;
  /** Re-fetches of a chunk whose answer lacked hours (ENVDATA_REFETCH_ATTEMPTS). */
  readonly refetchAttempts: number;
  /** First delay before such a re-fetch, doubled each time (ENVDATA_REFETCH_DELAY_MS). */
  readonly refetchDelayMs: number;
  /** The service's base address, for the message when most answers look like a wrong one. */
  readonly baseUrl: string;
  /** Ask for per-species risk on pollen history (ENVDATA_SPECIES_RISK). */
  readonly speciesRisk: boolean;
  /** Pauses every worker of the queue for `ms` and puts the job back, attempts untouched. */
  readonly pauseAll: (ms: number) => Promise<never>;
  /** Dispatches chunks created while working (the halves of a split). */
  readonly dispatch: (chunkIds: readonly number[]) => Promise<unknown>;
  /** Takes an error meaning Postgres or Redis is down (said once per outage): `true` if so. */
  readonly outages?: { report(error: unknown): boolean };
}

export type IngestOutcome = 'landed' | 'skipped' | 'split' | 'failed';

const MAX_BACKOFF_MS = 60_000;

/**
 * The ingest job: claim the chunk in the ledger, make its one history request, land the rows,
 * the coverage and the chunk's state in one transaction. What happens on each outcome:
 *
 * - an answer lacking hours (or with hours quarantined): what arrived lands; the chunk is fetched
 *   again after a growing delay, up to `refetchAttempts` times, then the hours still absent are
 *   recorded as missing upstream (or quarantined) and the chunk is done.
 * - PARTIAL (206): the trimmed rows land and the chunk is fetched again (an attempt).
 * - RATE_LIMITED / QUOTA_EXCEEDED: every worker pauses (Retry-After, else a growing backoff with
 *   jitter, never 0); the job goes back without using an attempt.
 * - UNAUTHORIZED: the run stops at once; no retry can fix a refused key.
 * - FORBIDDEN: the chunk fails and the run stops fetching that dataset.
 * - RANGE_TOO_LONG, RESPONSE_TOO_LARGE: the chunk is split into halves (down to one hour), which
 *   are dispatched.
 * - ABORTED (the worker's shutdown deadline): the chunk goes back to `queued`, nothing counted.
 * - NOT_COVERED (404) and answers that are not the service's: when they are most of what a run
 *   gets, the base address is wrong: the run stops, and nothing it was told counts as coverage.
 * - other retryable codes: exponential backoff with jitter up to `maxAttempts`, then failed.
 * - other codes: the chunk fails with code and message; the run goes on.
 */
export function createIngestChunkProcessor(deps: IngestChunkDeps) {
  const log = deps.logger.child({ component: 'ingest' });
  const guard = new WrongAddressGuard();
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

  const closeRun = async (runId: number): Promise<void> => {
    const status = await closeRunIfDone(deps.db, runId);
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

  /** Stops the run when most of its answers look like a wrong base address. */
  const checkAddress = async (runId: number, suspicious: boolean): Promise<boolean> => {
    const verdict = guard.observe(runId, suspicious);
    if (!verdict) return false;
    const message =
      `${verdict.suspicious} of the last ${verdict.answers} answers for run ${runId} were 404 or ` +
      `not the service's: check ENVDATA_BASE_URL (${deps.baseUrl}); nothing they said counts as ` +
      `coverage. Then \`envdata resume ${runId}\` (a location truly outside the service's ` +
      'coverage answers 404 too: remove it with `envdata locations remove`)';
    if (await stopRun(deps.db, runId, 'WRONG_ADDRESS', message, { forgetNotCovered: true })) {
      log.error({ runId }, message);
    }
    return true;
  };

  const process = async (job: Job<IngestJobData>, token?: string): Promise<IngestOutcome> => {
    const chunk = await claimChunk(deps.db, job.data.chunkId);
    if (!chunk) return 'skipped';
    const attempts = job.attemptsMade + 1;
    const settle = () => closeRun(chunk.runId);

    const wait = await deps.budget.take();
    if (wait > 0) {
      await releaseChunk(deps.db, chunk.chunkId);
      return deps.pauseAll(wait);
    }

    let result: LandingResult;
    try {
      const landing = await fetchChunk(
        deps.client,
        { ...chunk, attempts, refetchAllowed: chunk.refetches < deps.refetchAttempts },
        { speciesRisk: deps.speciesRisk },
      );
      const notCovered = landing.outcome === 'not_covered';
      if ((await checkAddress(chunk.runId, notCovered)) && notCovered) {
        await releaseChunk(deps.db, chunk.chunkId);
        return 'skipped';
      }
      result = await deps.land(landing);
      throttled = 0;
    } catch (thrown) {
      return handleError(coerceError(thrown));
    }

    if (result.state === 'refetch') {
      const delay = Math.round(
        deps.refetchDelayMs * 2 ** Math.min(chunk.refetches, 12) * (0.5 + Math.random()),
      );
      log.warn(
        {
          chunkId: chunk.chunkId,
          missingHours: result.missingHours,
          quarantinedHours: result.quarantinedHours,
          refetch: chunk.refetches + 1,
          delayMs: delay,
        },
        'answer lacked hours: fetching the chunk again',
      );
      await job.moveToDelayed(Date.now() + delay, token);
      throw new DelayedError();
    }
    if (result.state === 'partial') {
      const message =
        'the service trimmed the payload (206); rows kept, the chunk will be fetched again';
      return retryOrFail('PARTIAL', message, true, false);
    }
    if (result.missingHours > 0 || result.quarantinedHours > 0 || result.conflictHours > 0) {
      log.warn(
        {
          chunkId: chunk.chunkId,
          missingHours: result.missingHours,
          quarantinedHours: result.quarantinedHours,
          conflictHours: result.conflictHours,
        },
        'chunk done with hours missing upstream or quarantined',
      );
    }
    settleSoon(chunk.runId);
    return 'landed';

    async function retryOrFail(
      code: string,
      message: string,
      retryable: boolean,
      madeCall: boolean,
      error?: Error,
    ): Promise<IngestOutcome> {
      if (retryable && attempts < deps.maxAttempts) {
        await recordChunkError(deps.db, chunk!.chunkId, 'retry', {
          attempts,
          code,
          message,
          madeCall,
        });
        log.warn({ chunkId: chunk!.chunkId, code, attempts }, 'will retry');
        throw error ?? new Error(message);
      }
      await recordChunkError(deps.db, chunk!.chunkId, 'fail', {
        attempts,
        code,
        message,
        madeCall,
      });
      await settle();
      log.warn({ chunkId: chunk!.chunkId, code, attempts }, 'chunk failed');
      return 'failed';
    }

    async function handleError(error: Error): Promise<IngestOutcome> {
      const code = isServiceError(error) ? error.code : 'INTERNAL';
      if (isServiceError(error, 'RATE_LIMITED') || isServiceError(error, 'QUOTA_EXCEEDED')) {
        await releaseChunk(deps.db, chunk!.chunkId);
        const quota = error.code === 'QUOTA_EXCEEDED';
        const ms =
          error.retryAfterMs && error.retryAfterMs > 0
            ? error.retryAfterMs
            : backoff(quota ? 60_000 : 1_000, quota ? 3_600_000 : MAX_BACKOFF_MS);
        log.warn({ chunkId: chunk!.chunkId, code, pauseMs: ms }, 'throttled: pausing all workers');
        return deps.pauseAll(ms);
      }
      if (isServiceError(error, 'UNAUTHORIZED')) {
        // The client's message says what was refused; what it means here is this job's to say.
        const message = `${error.message}; the run stops until the key is fixed`;
        await releaseChunk(deps.db, chunk!.chunkId);
        await stopRun(deps.db, chunk!.runId, code, message);
        log.error({ runId: chunk!.runId }, message);
        throw new UnrecoverableError(message);
      }
      if (isServiceError(error, 'FORBIDDEN')) {
        await recordChunkError(deps.db, chunk!.chunkId, 'fail', {
          attempts,
          code,
          message: error.message,
        });
        await blockDataset(deps.db, chunk!.runId, chunk!.dataset, error.message);
        await settle();
        throw new UnrecoverableError(error.message);
      }
      if (isServiceError(error, 'RANGE_TOO_LONG') || isServiceError(error, 'RESPONSE_TOO_LARGE')) {
        // A shorter window means a smaller answer too: split like a range the service refuses.
        const halves = await splitChunk(deps.db, chunk!, attempts, error.code);
        if (halves.length > 0) {
          await deps.dispatch(halves);
          return 'split';
        }
        const last =
          error.code === 'RESPONSE_TOO_LARGE'
            ? `${error.message} (one hour is the shortest window: only a higher limit helps)`
            : error.message;
        return retryOrFail(code, last, false, true);
      }
      if (isServiceError(error, 'ABORTED')) {
        // The worker is shutting down: the chunk goes back, untouched, for another worker.
        await releaseChunk(deps.db, chunk!.chunkId);
        throw error;
      }
      if (isServiceError(error, 'MALFORMED_RESPONSE') && (await checkAddress(chunk!.runId, true))) {
        await releaseChunk(deps.db, chunk!.chunkId);
        return 'skipped';
      }
      const retryable = !isServiceError(error) || error.retryable;
      return retryOrFail(code, error.message, retryable, true, error);
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
