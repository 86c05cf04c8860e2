import { performance } from 'node:perf_hooks';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { Kysely } from 'kysely';
import type { CallBudget } from '../dispatch/call-budget.js';
import type { CallPacer, PacedCall } from '../dispatch/call-pacer.js';
import type { QuotaGate, QuotaHold, QuotaUse } from '../dispatch/quota-gate.js';
import type { IngestJobData } from '../../jobs/ingest-chunk-job.js';
import { coerceError } from '../errors/coerce-error.js';
import { SQLSTATE, hasSqlState } from '../errors/pg-errors.js';
import { fetchChunk } from './fetch-chunk.js';
import { ledgerShareUnitMemory } from './share-unit-memory.js';
import { blockDataset } from '../ledger/block-dataset.js';
import { claimChunk, type ClaimedChunk, type ClaimRechecks } from '../ledger/claim-chunk.js';
import { closeRunIfDone } from '../ledger/close-run-if-done.js';
import { recordChunkError } from '../ledger/record-chunk-error.js';
import { releaseChunk } from '../ledger/release-chunk.js';
import { markRunWaiting } from '../ledger/mark-run-waiting.js';
import { runKindOf } from '../ledger/run-kind-of.js';
import { recordWindowAnswer } from '../ledger/history-window.js';
import { splitChunk } from '../ledger/split-chunk.js';
import { stopRun } from '../ledger/stop-run.js';
import type { Logger } from '../logging/create-logger.js';
import type {
  ChunkJobOutcome,
  MetricsObserver,
  RateLimitWaitReason,
} from '../metrics/metrics-observer.js';
import type { ServiceClient } from '../service/service-client.js';
import { ServiceError } from '../service/service-error.js';
import type { ChunkLanding, LandingResult } from './fact-writer.js';
import type { Database } from '../warehouse/schema.js';
import { OUTCOME_POLICY, outcomeOf, type Outcome, type PolicyCode } from './outcome-policy.js';
import { jitteredBackoffMs, type ThrottleBackoff } from './throttle-backoff.js';
import { WrongAddressGuard } from './wrong-address-guard.js';
import type { Dataset } from '../types.js';
import {
  pieceHoursAfterRefusal,
  type WindowKnowledge,
  type WindowScope,
} from '../windows/learned-window.js';

export interface IngestChunkDeps {
  readonly db: Kysely<Database>;
  readonly client: ServiceClient;
  /** Lands one chunk (facts, quarantine, archive, coverage and chunk state in one transaction). */
  readonly land: (landing: ChunkLanding) => Promise<LandingResult>;
  readonly budget: CallBudget;
  /**
   * The calendar quotas and the sync's reserve (ENVDATA_QUOTA, ENVDATA_SYNC_RESERVE): a chunk
   * they refuse goes back to the queue, delayed, no attempt used, and its run shows why.
   */
  readonly quota?: Pick<QuotaGate, 'enabled' | 'take' | 'spent'>;
  /** Longest a held job sleeps before it looks at the quota again (ENVDATA_MAX_PAUSE). */
  readonly quotaRecheckMs?: number;
  /** Spaces the calls of the tightest rate-limit rule, when it is paced (see `CallPacer`). */
  readonly pacer?: Pick<CallPacer, 'acquire'>;
  /** Aborted when the worker stops: a job waiting for its call's slot gives its chunk back. */
  readonly stopping?: AbortSignal;
  readonly logger: Logger;
  readonly maxAttempts: number;
  /** Re-fetches of a chunk whose answer lacked hours (ENVDATA_REFETCH_ATTEMPTS). */
  readonly refetchAttempts: number;
  /**
   * The recheck intervals of holes (ENVDATA_MISSING_RECHECK, ENVDATA_NO_DATA_RECHECK): a chunk
   * whose hours are all settled by them when claimed is done without a call (`claimChunk`).
   */
  readonly rechecks: ClaimRechecks;
  /** First delay before such a re-fetch, doubled each time (ENVDATA_REFETCH_DELAY_MS). */
  readonly refetchDelayMs: number;
  /** The service's base address, for the message when most answers look like a wrong one. */
  readonly baseUrl: string;
  /** Ask for per-species risk on pollen history (ENVDATA_SPECIES_RISK). */
  readonly speciesRisk: boolean;
  /**
   * Pauses every worker of the queue for `ms` and puts the job back, attempts untouched: for the
   * call budget (`budget`) or a throttled answer (`throttled`).
   */
  readonly pauseAll: (ms: number, reason: RateLimitWaitReason) => Promise<never>;
  /** How long a throttled answer pauses every worker: one per worker, shared by its job kinds. */
  readonly throttle: ThrottleBackoff;
  /** Dispatches chunks created while working (the halves of a split). */
  readonly dispatch: (chunkIds: readonly number[]) => Promise<unknown>;
  /** Takes an error meaning Postgres or Redis is down (said once per outage): `true` if so. */
  readonly outages?: { report(error: unknown): boolean };
  /** Told how long each job that claimed its chunk took, and how it ended. */
  readonly observer?: Pick<MetricsObserver, 'chunkFinished'>;
  /**
   * The key and address the learned history window is recorded for: each window answered, or
   * refused as too long (`envdata.history_window`). Without it nothing is learned.
   */
  readonly windowScope?: WindowScope;
  /** Told when an answer taught a longer window or a refusal (the feeder may plan the next). */
  readonly windowLearned?: () => void;
}

/** `settled`: every hour of the chunk was settled when claimed; done without a call. */
export type IngestOutcome = 'landed' | 'skipped' | 'settled' | 'split' | 'failed';

/**
 * What the job does next with its chunk: decided from the landing, or from the code of what was
 * thrown through `OUTCOME_POLICY`, before anything is done about it (`act` does it).
 */
type ChunkStep =
  | { readonly kind: 'landed'; readonly result: LandingResult }
  | { readonly kind: 'refetch'; readonly result: LandingResult; readonly delayMs: number }
  /** `code` is absent when the call budget, not the service, asked for the pause. */
  | { readonly kind: 'pause-all'; readonly code: PolicyCode | undefined; readonly ms: number }
  | { readonly kind: 'stop-run'; readonly code: PolicyCode; readonly message: string }
  /** A calendar quota refused the call (`said`: the service said it is spent). */
  | { readonly kind: 'quota-hold'; readonly hold: QuotaHold; readonly said: boolean }
  | { readonly kind: 'block-dataset'; readonly code: PolicyCode; readonly message: string }
  /** `unsplittable`: the failure's message when the chunk is one hour already. */
  | { readonly kind: 'split'; readonly code: PolicyCode; readonly unsplittable: string }
  /** With `error`: rethrown for the worker to put the job back; without, the job is skipped. */
  | { readonly kind: 'release'; readonly error?: Error }
  | {
      readonly kind: 'retry' | 'fail';
      readonly code: PolicyCode;
      readonly message: string;
      /** `false`: the call was counted already (a trimmed answer, counted when its rows landed). */
      readonly madeCall: boolean;
      readonly error: Error;
    };

/**
 * The ingest job: claim the chunk in the ledger, make its one history request, land the rows,
 * the coverage and the chunk's state in one transaction. What a code leads to is
 * `OUTCOME_POLICY`'s; here is what each outcome means for a chunk:
 *
 * - an answer lacking hours (or with hours quarantined): what arrived lands; the chunk is fetched
 *   again after a growing delay, up to `refetchAttempts` times, then the hours still absent are
 *   recorded as missing upstream (or quarantined) and the chunk is done.
 * - `land-empty` (NO_DATA, NOT_COVERED): the chunk is done with zero rows (`fetchChunk`).
 * - `retry`: PARTIAL (206) lands the trimmed rows first; the chunk is fetched again after an
 *   exponential backoff with jitter (the job's options) up to `maxAttempts`, then fails.
 * - `pause-all` (RATE_LIMITED, QUOTA_EXCEEDED): every worker pauses (`ThrottleBackoff`); the job
 *   goes back without using an attempt.
 * - `stop-run` (UNAUTHORIZED): the run stops at once; no retry can fix a refused key.
 * - `block-dataset` (FORBIDDEN): the chunk fails and the run stops fetching that dataset.
 * - `split` (RANGE_TOO_LONG, RESPONSE_TOO_LARGE): the chunk is split into halves (down to one
 *   hour), which are dispatched.
 * - `release` (ABORTED, the worker's shutdown deadline): the chunk goes back to `queued`, nothing
 *   counted.
 * - `fail`: the chunk fails with code and message; the run goes on.
 * - a wrong-address sign (NOT_COVERED, MALFORMED_RESPONSE): when such answers are most of what a
 *   run gets, the base address is wrong: the run stops, and nothing it was told counts as
 *   coverage.
 */
export function createIngestChunkProcessor(deps: IngestChunkDeps) {
  const log = deps.logger.child({ component: 'ingest' });
  const guard = new WrongAddressGuard();
  const { throttle } = deps;
  // The longest window this process has recorded as accepted, per dataset: a landing of a window
  // no longer than it teaches nothing, and costs no write.
  const recordedAccepted = new Map<Dataset, number>();
  const shareUnits = ledgerShareUnitMemory(deps.db);
  // Who may take the sync's reserve: a run's kind never changes, so it is read once per run.
  const runUses = new Map<number, QuotaUse>();
  const useOf = async (runId: number): Promise<QuotaUse> => {
    let use = runUses.get(runId);
    if (use === undefined) {
      use = (await runKindOf(deps.db, runId)) === 'sync' ? 'sync' : 'other';
      if (runUses.size > 10_000) runUses.clear();
      runUses.set(runId, use);
    }
    return use;
  };
  // One line per spent window and reset in this process, not one per job held.
  let holdSaid = '';

  /** Records what the service's answer to `chunk` teaches of the window (never fails the job). */
  const learnWindow = async (
    chunk: ClaimedChunk,
    answer: 'accepted' | 'refused',
  ): Promise<WindowKnowledge | undefined> => {
    const scope = deps.windowScope;
    if (!scope) return undefined;
    const hours = (chunk.window.to.getTime() - chunk.window.from.getTime()) / 3_600_000;
    if (answer === 'accepted' && hours <= (recordedAccepted.get(chunk.dataset) ?? 0)) {
      return undefined;
    }
    try {
      const known = await recordWindowAnswer(deps.db, scope, chunk.dataset, answer, hours);
      if (known.acceptedHours === null) recordedAccepted.delete(chunk.dataset);
      else recordedAccepted.set(chunk.dataset, known.acceptedHours);
      deps.windowLearned?.();
      return known;
    } catch (error) {
      log.warn({ err: error, chunkId: chunk.chunkId }, 'could not record the history window');
      return undefined;
    }
  };

  const closeRun = async (runId: number): Promise<void> => {
    const status = await closeRunIfDone(deps.db, runId);
    if (status) log.info({ runId, status }, 'run finished');
  };
  // After a landing, one check per run every 100 ms at most, off the job's path: checking after
  // every chunk of a busy run costs a query per chunk for nothing. One check per run in flight at
  // a time: a landing during a check asks for one more after it, never a pile of them.
  // Per run: the pending timer (none while its check runs), and whether a landing came meanwhile.
  const settling = new Map<number, { timer?: NodeJS.Timeout; again: boolean }>();
  let closed = false;
  const settleSoon = (runId: number): void => {
    if (closed) return;
    const state = settling.get(runId);
    if (state) {
      if (!state.timer) state.again = true;
      return;
    }
    const next: { timer?: NodeJS.Timeout; again: boolean } = { again: false };
    settling.set(runId, next);
    next.timer = setTimeout(() => {
      next.timer = undefined;
      closeRun(runId)
        .catch((error: unknown) => {
          if (!deps.outages?.report(error)) {
            log.warn({ err: error, runId }, 'could not close the run; the feeder will');
          }
        })
        .finally(() => {
          settling.delete(runId);
          if (next.again) settleSoon(runId);
        });
    }, 100).unref();
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
    const chunk = await claimChunk(deps.db, job.data.chunkId, deps.rechecks);
    if (!chunk) return 'skipped';
    if ('settled' in chunk) {
      log.debug({ chunkId: chunk.chunkId, runId: chunk.runId }, 'chunk settled meanwhile: no call');
      settleSoon(chunk.runId);
      return 'settled';
    }
    const started = performance.now();
    // `error` unless a step was decided: what was thrown on the way was not the service's.
    let outcome: ChunkJobOutcome = 'error';
    try {
      const attempts = job.attemptsMade + 1;
      const step = await fetchAndLand(chunk, attempts);
      outcome = outcomeOfStep(step);
      const result = await act(step, chunk, attempts, job, token);
      // A split that could not split failed.
      if (result === 'failed') outcome = 'failed';
      return result;
    } finally {
      deps.observer?.chunkFinished(chunk.dataset, outcome, (performance.now() - started) / 1_000);
    }
  };

  /** Makes the chunk's call and lands its answer; what is to happen next is the step returned. */
  const fetchAndLand = async (chunk: ClaimedChunk, attempts: number): Promise<ChunkStep> => {
    if (deps.quota?.enabled) {
      const hold = await deps.quota.take(await useOf(chunk.runId));
      if (hold) return { kind: 'quota-hold', hold, said: false };
    }
    const wait = await deps.budget.take();
    if (wait > 0) return { kind: 'pause-all', code: undefined, ms: wait };
    let paced: PacedCall | undefined;
    try {
      paced = await deps.pacer?.acquire(deps.stopping);
    } catch (thrown) {
      // No call was made: the chunk goes back. Stopping, the job goes back to the queue; an
      // outage of the slots' backend, the worker waits it out first (IngestWorker.run).
      return { kind: 'release', error: pacingError(thrown, deps.stopping) };
    }

    let result: LandingResult;
    try {
      const landing = await fetchChunk(
        deps.client,
        { ...chunk, attempts, refetchAllowed: chunk.refetches < deps.refetchAttempts },
        { speciesRisk: deps.speciesRisk, shareUnits },
      ).finally(() => paced?.answered());
      // Before the landing marks the chunk done: a probe counts as in flight until what it
      // taught is recorded, so the feeder never plans the same probe twice.
      if (landing.outcome === 'rows') await learnWindow(chunk, 'accepted');
      const notCovered =
        landing.outcome === 'not_covered' && OUTCOME_POLICY.NOT_COVERED.wrongAddressSign;
      if ((await checkAddress(chunk.runId, notCovered)) && notCovered) return { kind: 'release' };
      result = await deps.land(landing);
      throttle.reset();
    } catch (thrown) {
      // The shutdown deadline cancelled the landing on the server: its transaction rolled back,
      // nothing of it is kept; the chunk goes back like one whose call was abandoned.
      if (deps.stopping?.aborted && hasSqlState(thrown, SQLSTATE.queryCanceled)) {
        return { kind: 'release', error: landingCancelled(thrown) };
      }
      const error = coerceError(thrown);
      const { code, outcome, retryAfterMs } = outcomeOf(error);
      if (code === 'RATE_LIMITED') paced?.throttled();
      // The service says the quota is spent: every worker holds its jobs until the quota's
      // reset (or the Retry-After it sent), reading the shared counter, not asking the service.
      if (code === 'QUOTA_EXCEEDED' && retryAfterMs === undefined && deps.quota?.enabled) {
        const hold = await deps.quota.spent();
        if (hold) return { kind: 'quota-hold', hold, said: true };
      }
      if (outcome.wrongAddressSign && (await checkAddress(chunk.runId, true))) {
        return { kind: 'release' };
      }
      return stepOf(code, outcome, error, { attempts, madeCall: true, retryAfterMs });
    }

    if (result.state === 'refetch') {
      return {
        kind: 'refetch',
        result,
        delayMs: jitteredBackoffMs(deps.refetchDelayMs, chunk.refetches),
      };
    }
    if (result.state === 'partial') {
      const trimmed = new Error(
        'the service trimmed the payload (206); rows kept, the chunk will be fetched again',
      );
      return stepOf('PARTIAL', OUTCOME_POLICY.PARTIAL, trimmed, {
        attempts,
        madeCall: false,
        retryAfterMs: undefined,
      });
    }
    return { kind: 'landed', result };
  };

  /** The table's outcome for this chunk (the ingest job's reading of `OUTCOME_POLICY`). */
  const stepOf = (
    code: PolicyCode,
    outcome: Outcome,
    error: Error,
    call: { attempts: number; madeCall: boolean; retryAfterMs: number | undefined },
  ): ChunkStep => {
    const { message } = error;
    const { attempts, madeCall } = call;
    switch (outcome.kind) {
      case 'pause-all':
        return { kind: 'pause-all', code, ms: throttle.pauseMs(outcome, call.retryAfterMs) };
      case 'stop-run':
        // The client's message says what was refused; what it means here is this job's to say.
        return {
          kind: 'stop-run',
          code,
          message: `${message}; the run stops until the key is fixed`,
        };
      case 'block-dataset':
        return { kind: 'block-dataset', code, message };
      case 'split':
        return {
          kind: 'split',
          code,
          unsplittable:
            code === 'RESPONSE_TOO_LARGE'
              ? `${message} (one hour is the shortest window: only a higher limit helps)`
              : message,
        };
      case 'release':
        return { kind: 'release', error };
      case 'retry':
        return {
          kind: attempts < deps.maxAttempts ? 'retry' : 'fail',
          code,
          message,
          madeCall,
          error,
        };
      // `fetchChunk` turns "no data" and "not covered" into landings: thrown, the chunk fails.
      case 'land-empty':
      case 'fail':
        return { kind: 'fail', code, message, madeCall, error };
    }
  };

  /** Does what the step says: the one place the ledger and BullMQ hear of an outcome. */
  const act = async (
    step: ChunkStep,
    chunk: ClaimedChunk,
    attempts: number,
    job: Job<IngestJobData>,
    token: string | undefined,
  ): Promise<IngestOutcome> => {
    const { chunkId, runId } = chunk;
    switch (step.kind) {
      case 'landed': {
        const { result } = step;
        if (result.missingHours > 0 || result.quarantinedHours > 0 || result.conflictHours > 0) {
          log.warn(
            {
              chunkId,
              missingHours: result.missingHours,
              quarantinedHours: result.quarantinedHours,
              conflictHours: result.conflictHours,
            },
            'chunk done with hours missing upstream or quarantined',
          );
        }
        settleSoon(runId);
        return 'landed';
      }
      case 'refetch':
        log.warn(
          {
            chunkId,
            missingHours: step.result.missingHours,
            quarantinedHours: step.result.quarantinedHours,
            refetch: chunk.refetches + 1,
            delayMs: step.delayMs,
          },
          'answer lacked hours: fetching the chunk again',
        );
        await job.moveToDelayed(Date.now() + step.delayMs, token);
        throw new DelayedError();
      case 'quota-hold': {
        const { hold } = step;
        await releaseChunk(deps.db, chunkId);
        const reason = `${hold.by} (${hold.window})`;
        await markRunWaiting(deps.db, runId, reason, new Date(hold.untilMs));
        const said = `${reason} ${hold.untilMs}`;
        if (holdSaid !== said) {
          holdSaid = said;
          log.warn(
            { runId, window: hold.window, until: new Date(hold.untilMs).toISOString() },
            step.said
              ? 'the service says the quota is spent: every worker waits for its reset'
              : `${reason} spent: work waits for its reset, no attempt used`,
          );
        }
        // Back to the queue until the reset, or ENVDATA_MAX_PAUSE if sooner: the job then looks
        // at the shared counter again (no call) and sleeps once more while the quota is spent.
        const untilMs = Math.min(hold.untilMs, Date.now() + (deps.quotaRecheckMs ?? 900_000));
        await job.moveToDelayed(Math.max(untilMs, Date.now() + 1), token);
        throw new DelayedError();
      }
      case 'pause-all':
        await releaseChunk(deps.db, chunkId);
        if (step.code) {
          log.warn(
            { chunkId, code: step.code, pauseMs: step.ms },
            'throttled: pausing all workers',
          );
        }
        return deps.pauseAll(step.ms, step.code ? 'throttled' : 'budget');
      case 'release':
        await releaseChunk(deps.db, chunkId);
        // ABORTED: the worker is shutting down; the job goes back for another worker.
        if (step.error) throw step.error;
        return 'skipped';
      case 'stop-run':
        await releaseChunk(deps.db, chunkId);
        await stopRun(deps.db, runId, step.code, step.message);
        log.error({ runId }, step.message);
        throw new UnrecoverableError(step.message);
      case 'block-dataset':
        await recordChunkError(deps.db, chunkId, 'fail', {
          attempts,
          code: step.code,
          message: step.message,
        });
        await blockDataset(deps.db, runId, chunk.dataset, step.message);
        await closeRun(runId);
        throw new UnrecoverableError(step.message);
      case 'split': {
        const known =
          step.code === 'RANGE_TOO_LONG' ? await learnWindow(chunk, 'refused') : undefined;
        const hours = (chunk.window.to.getTime() - chunk.window.from.getTime()) / 3_600_000;
        // A refused chunk of an auto-window run goes back to the window known to be accepted:
        // a probe too long costs its one call.
        const pieceHours =
          chunk.windowAuto && known ? pieceHoursAfterRefusal(known, hours) : undefined;
        const halves = await splitChunk(deps.db, chunk, attempts, step.code, pieceHours);
        if (halves.length > 0) {
          await deps.dispatch(halves);
          return 'split';
        }
        const message = step.unsplittable;
        return act(
          { kind: 'fail', code: step.code, message, madeCall: true, error: new Error(message) },
          chunk,
          attempts,
          job,
          token,
        );
      }
      case 'retry': {
        const { code, message, madeCall } = step;
        await recordChunkError(deps.db, chunkId, 'retry', { attempts, code, message, madeCall });
        log.warn({ chunkId, code, attempts }, 'will retry');
        // BullMQ runs the job again after the backoff of its options.
        throw step.error;
      }
      case 'fail': {
        const { code, message, madeCall } = step;
        await recordChunkError(deps.db, chunkId, 'fail', { attempts, code, message, madeCall });
        await closeRun(runId);
        log.warn({ chunkId, code, attempts }, 'chunk failed');
        return 'failed';
      }
    }
  };

  /** Closes the runs whose check is pending; call before closing the database. */
  const close = async (): Promise<void> => {
    closed = true;
    const runs = [...settling.keys()];
    for (const { timer } of settling.values()) clearTimeout(timer);
    settling.clear();
    for (const runId of runs) await closeRun(runId);
  };

  return { process, close };
}

/** How a job whose next step is `step` ended, for `envdata_chunk_duration_seconds`. */
function outcomeOfStep(step: ChunkStep): ChunkJobOutcome {
  switch (step.kind) {
    case 'landed':
      return 'landed';
    case 'refetch':
      return 'refetch';
    case 'pause-all':
      return step.code ? 'throttled' : 'budget';
    case 'quota-hold':
      return 'budget';
    case 'stop-run':
      return 'stopped';
    case 'block-dataset':
      return 'blocked';
    case 'split':
      return 'split';
    case 'release':
      return 'released';
    case 'retry':
      return 'retry';
    case 'fail':
      return 'failed';
  }
}

/** What a job whose landing the shutdown deadline cancelled in Postgres rethrows: ABORTED. */
function landingCancelled(cause: unknown): ServiceError {
  return new ServiceError(
    'ABORTED',
    'the worker is stopping: the landing still waiting in Postgres at the shutdown deadline was cancelled and rolled back; the work goes back to the queue',
    { endpoint: undefined, retryable: true, cause },
  );
}

/** What a job whose pacing was cut short rethrows: ABORTED when the worker is stopping. */
export function pacingError(thrown: unknown, stopping: AbortSignal | undefined): Error {
  if (!stopping?.aborted) return coerceError(thrown);
  return new ServiceError(
    'ABORTED',
    'the worker is stopping: the call waiting for its slot of the rate limit was not made; the work goes back to the queue',
    { endpoint: undefined, retryable: true },
  );
}
