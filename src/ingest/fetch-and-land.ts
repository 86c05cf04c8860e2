import type { QuotaUse } from '../admission/quota-gate.js';
import { coerceError } from '../errors/coerce-error.js';
import { SQLSTATE, hasSqlState } from '../errors/pg-errors.js';
import type { ClaimedChunk } from '../ledger/claim-chunk.js';
import { runKindOf } from '../ledger/run-kind-of.js';
import { ServiceError } from '../service/service-error.js';
import { stepOf, type ChunkStep } from './chunk-step.js';
import { PARTIAL_MESSAGE, type LandingResult } from '../ledger/landing-decision.js';
import { fetchChunk } from './fetch-chunk.js';
import type { IngestChunkDeps } from './ingest-chunk-deps.js';
import { OUTCOME_POLICY, outcomeOf } from './outcome-policy.js';
import type { Dataset, ShareField } from '../types.js';
import { pieceHoursAfterRefusal } from '../windows/learned-window.js';
import { fillSetAsideShares } from '../landing/fill-set-aside-shares.js';
import { ledgerShareUnitMemory, type ShareUnitMemory } from './share-unit-memory.js';
import type { WindowLearner } from './window-learner.js';
import type { WrongAddressCheck } from './wrong-address-check.js';
import type { TraceParent } from '../tracing/tracing.js';

/** Makes a chunk's call and lands its answer; what is to happen next is the step returned. */
export type ChunkFetcher = (
  chunk: ClaimedChunk,
  attempts: number,
  /** The span of the chunk's job: the call's, the landing's spans go under it. */
  trace?: TraceParent,
) => Promise<ChunkStep>;

/**
 * The ingest job's call and landing: admitted first (`Admission.admit`: the pace, the quota and
 * the call budget), then the request, what the answer teaches of the window and of the base
 * address, and the landing. What is thrown on the way becomes a step through `OUTCOME_POLICY`
 * (`stepOf`); a window refused as too long is learned here, for the split. Nothing here touches
 * the chunk's state but the landing.
 */
export function createChunkFetcher(
  deps: Pick<
    IngestChunkDeps,
    | 'db'
    | 'client'
    | 'landings'
    | 'admission'
    | 'stopping'
    | 'maxAttempts'
    | 'refetchAttempts'
    | 'refetchDelayMs'
    | 'speciesRisk'
    | 'shapes'
    | 'logger'
  >,
  parts: { readonly learner: WindowLearner; readonly checkAddress: WrongAddressCheck },
): ChunkFetcher {
  const { admission, maxAttempts, refetchAttempts, refetchDelayMs } = deps;
  const { learner, checkAddress } = parts;
  const policy = { throttle: admission, maxAttempts };
  // Share fields whose unit an answer of history just taught: shares set aside before, for
  // want of it, are filled from the archive after the next landing (`fillSetAsideShares`).
  const ledgerUnits = ledgerShareUnitMemory(deps.db);
  const taught = new Map<Dataset, Set<ShareField>>();
  const shareUnits: ShareUnitMemory = {
    recall: ledgerUnits.recall,
    async learn(dataset, source, told) {
      const written = await ledgerUnits.learn(dataset, source, told);
      if (source === 'history' && written.length > 0) {
        const fields = taught.get(dataset) ?? new Set();
        for (const field of written) fields.add(field);
        taught.set(dataset, fields);
      }
      return written;
    },
  };
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

  /**
   * After a landing, when an answer (this one or another of this worker's) has just taught a
   * field's unit: the shares set aside for want of it, filled from the archive. Never a call; a
   * failure is logged and left to the run's close, or `envdata rebuild` (the values stay listed
   * as set aside).
   */
  const fillWhatWasSetAside = async (): Promise<void> => {
    if (taught.size === 0) return;
    const fields = [...new Set([...taught.values()].flatMap((set) => [...set]))];
    taught.clear();
    try {
      await fillSetAsideShares(deps.db, deps.logger, { fields });
    } catch (thrown) {
      deps.logger.warn(
        { fields, err: coerceError(thrown) },
        'shares set aside could not be filled from the archive now; `envdata rebuild` fills them',
      );
    }
  };

  return async (chunk, attempts, trace) => {
    const admitted = await admission.admit(
      { use: () => useOf(chunk.runId), budgeted: true, trace },
      deps.stopping,
    );
    switch (admitted.kind) {
      case 'pace':
        // No call was made: the chunk goes back. Stopping, the job goes back to the queue; an
        // outage of the slots' backend, the worker waits it out first (IngestWorker.run).
        return { kind: 'release', error: admitted.error };
      case 'quota':
        return { kind: 'quota-hold', hold: admitted.hold, said: false };
      case 'budget':
        return { kind: 'pause-all', code: undefined, ms: admitted.ms };
    }
    const { permit } = admitted;

    let result: LandingResult;
    try {
      const landing = await fetchChunk(
        deps.client,
        {
          ...chunk,
          attempts,
          retries: { refetches: chunk.refetches, refetchAttempts, refetchDelayMs, maxAttempts },
        },
        { speciesRisk: deps.speciesRisk, shareUnits, shapes: deps.shapes, trace },
      ).finally(() => permit.answered());
      // Before the landing marks the chunk done: a probe counts as in flight until what it
      // taught is recorded, so the feeder never plans the same probe twice.
      if (landing.outcome === 'rows') await learner.learn(chunk, 'accepted');
      const notCovered =
        landing.outcome === 'not_covered' && OUTCOME_POLICY.NOT_COVERED.wrongAddressSign;
      if ((await checkAddress(chunk.runId, notCovered)) && notCovered) {
        return { kind: 'release', answered: true };
      }
      result = await deps.landings.land(landing, trace);
      admission.through();
      await fillWhatWasSetAside();
    } catch (thrown) {
      // The shutdown deadline cancelled the landing on the server: its transaction rolled back,
      // nothing of it is kept; the chunk goes back like one whose call was abandoned.
      if (deps.stopping?.aborted && hasSqlState(thrown, SQLSTATE.queryCanceled)) {
        return { kind: 'release', error: landingCancelled(thrown) };
      }
      const error = coerceError(thrown);
      const { code, outcome, retryAfterMs } = outcomeOf(error);
      // The service says the quota is spent: every worker holds its jobs until the quota's
      // reset (or the Retry-After it sent), reading the shared counter, not asking the service.
      const hold = await admission.refused(permit, code, retryAfterMs);
      if (hold) return { kind: 'quota-hold', hold, said: true };
      if (outcome.wrongAddressSign && (await checkAddress(chunk.runId, true))) {
        return { kind: 'release', answered: true };
      }
      const step = stepOf(code, outcome, error, { attempts, retryAfterMs }, policy);
      if (step.kind !== 'split' || code !== 'RANGE_TOO_LONG') return step;
      // A refused chunk of an auto-window run goes back to the window known to be accepted:
      // a probe too long costs its one call.
      const known = await learner.learn(chunk, 'refused');
      const hours = (chunk.window.to.getTime() - chunk.window.from.getTime()) / 3_600_000;
      if (!chunk.windowAuto || !known) return step;
      return { ...step, pieceHours: pieceHoursAfterRefusal(known, hours) };
    }

    // The ledger decided, and recorded in the landing, what a lacking or trimmed answer means.
    switch (result.state) {
      case 'refetch':
        return { kind: 'refetch', result, delayMs: result.refetchDelayMs };
      case 'partial':
      case 'failed':
        return {
          kind: result.state === 'partial' ? 'retry' : 'fail',
          code: 'PARTIAL',
          message: PARTIAL_MESSAGE,
          landed: true,
          error: new Error(PARTIAL_MESSAGE),
        };
      default:
        return { kind: 'landed', result };
    }
  };
}

/** What a job whose landing the shutdown deadline cancelled in Postgres rethrows: ABORTED. */
function landingCancelled(cause: unknown): ServiceError {
  return new ServiceError(
    'ABORTED',
    'the worker is stopping: the landing still waiting in Postgres at the shutdown deadline was cancelled and rolled back; the work goes back to the queue',
    { endpoint: undefined, retryable: true, cause },
  );
}
