import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { IngestJobData } from '../../jobs/ingest-chunk-job.js';
import { quotaHoldReason } from '../admission/quota-hold-reason.js';
import {
  decideChunkOutcome,
  recordChunkOutcome,
  type ChunkOutcomeStep,
} from '../ledger/chunk-outcome.js';
import type { ClaimedChunk } from '../ledger/claim-chunk.js';
import type { RunCloser } from '../ledger/run-closer.js';
import type { Logger } from '../logging/create-logger.js';
import type { ChunkStep } from './chunk-step.js';
import { oncePerRun } from './once-per-run.js';
import type { IngestChunkDeps, IngestOutcome } from './ingest-chunk-deps.js';
import { logFieldsOf, type TraceParent } from '../tracing/tracing.js';

/** Does what `step` says for `chunk`: returns how the job ended, or throws for BullMQ. */
export type StepInterpreter = (
  step: ChunkStep,
  chunk: ClaimedChunk,
  attempts: number,
  job: Job<IngestJobData>,
  token: string | undefined,
  /** The chunk's span: its lines carry its trace (`logFieldsOf`). */
  trace?: TraceParent,
) => Promise<IngestOutcome>;

/**
 * What the ledger is asked to write for `step` (`decideChunkOutcome` decides it), or `undefined`
 * for a re-fetch, which the landing recorded.
 */
function ledgerStepOf(step: ChunkStep): ChunkOutcomeStep | undefined {
  switch (step.kind) {
    case 'landed':
      return { kind: 'close' };
    case 'refetch':
      return undefined;
    case 'quota-hold': {
      const { hold } = step;
      // The service's "quota spent" answered a call that was sent: it counts in the run.
      return {
        kind: 'wait',
        callMade: step.said,
        reason: quotaHoldReason(hold),
        until: new Date(hold.untilMs),
        ...(hold.refusedByService && { refusedByService: hold.refusedByService }),
      };
    }
    case 'pause-all':
      // A 429 or 422 answered a call that was sent; the call budget's pause made none.
      return { kind: 'release', callMade: step.code !== undefined };
    case 'release':
      return { kind: 'release', callMade: step.answered === true };
    case 'stop-run':
      return { kind: 'stop', code: step.code, message: step.message };
    case 'block-dataset':
      return { kind: 'block', code: step.code, message: step.message };
    case 'split': {
      const { code, message, pieceHours } = step;
      return { kind: 'split', code, message, ...(pieceHours !== undefined && { pieceHours }) };
    }
    case 'retry':
    case 'fail':
      return { kind: step.kind, code: step.code, message: step.message, landed: step.landed };
  }
}

/**
 * The ingest job's step interpreter: the ledger decides and writes what a step means for the
 * chunk and its run, in one transaction (`decideChunkOutcome`, `recordChunkOutcome`); here the
 * job is only moved in BullMQ (delayed, paused, rethrown, its split's halves dispatched) and the
 * outcome logged.
 */
export function createStepInterpreter(
  deps: Pick<IngestChunkDeps, 'db' | 'quotaRecheckMs' | 'admission' | 'dispatch'>,
  parts: { readonly log: Logger; readonly closer: RunCloser },
): StepInterpreter {
  const { closer } = parts;
  // One line per spent window and reset in this process, not one per job held.
  let holdSaid = '';
  // One line per run and cause in this process for a failure every slot meets (a refused key).
  const firstTime = oncePerRun();

  return async (step, chunk, attempts, job, token, trace) => {
    const { chunkId, runId } = chunk;
    const traced = logFieldsOf(trace);
    const log = traced ? parts.log.child(traced) : parts.log;
    const ledgerStep = ledgerStepOf(step);
    const decision = ledgerStep && decideChunkOutcome(ledgerStep, chunk, attempts);
    const halves = decision ? await recordChunkOutcome(deps.db, closer, decision) : [];
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
        const reason = quotaHoldReason(hold);
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
        if (step.code) {
          log.warn(
            { chunkId, code: step.code, pauseMs: step.ms },
            'throttled: pausing all workers',
          );
        }
        return deps.admission.pause(step.ms, step.code ? 'throttled' : 'budget');
      case 'release':
        // ABORTED: the worker is shutting down; the job goes back for another worker.
        if (step.error) throw step.error;
        return 'skipped';
      case 'stop-run': {
        const message = decision!.message!;
        if (firstTime(runId, step.code)) log.error({ runId, code: step.code }, message);
        throw new UnrecoverableError(message);
      }
      case 'block-dataset':
        throw new UnrecoverableError(step.message);
      case 'split':
        // A chunk of one hour cannot split: the ledger failed it.
        if (decision!.kind === 'split' && halves.length > 0) {
          await deps.dispatch(halves);
          return 'split';
        }
        log.warn({ chunkId, code: step.code, attempts }, 'chunk failed');
        return 'failed';
      case 'retry':
        log.warn({ chunkId, code: step.code, attempts }, 'will retry');
        // BullMQ runs the job again after the backoff of its options.
        throw step.error;
      case 'fail':
        log.warn({ chunkId, code: step.code, attempts }, 'chunk failed');
        return 'failed';
    }
  };
}
