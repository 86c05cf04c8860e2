import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { IngestJobData } from '../../jobs/ingest-chunk-job.js';
import { quotaHoldReason } from '../admission/quota-hold-reason.js';
import { blockDataset } from '../ledger/block-dataset.js';
import type { ClaimedChunk } from '../ledger/claim-chunk.js';
import { markRunWaiting } from '../ledger/mark-run-waiting.js';
import { recordChunkError } from '../ledger/record-chunk-error.js';
import { releaseChunk } from '../ledger/release-chunk.js';
import type { RunCloser } from '../ledger/run-closer.js';
import { splitChunk } from '../ledger/split-chunk.js';
import { stopRun } from '../ledger/stop-run.js';
import type { Logger } from '../logging/create-logger.js';
import { pieceHoursAfterRefusal } from '../windows/learned-window.js';
import type { ChunkStep } from './chunk-step.js';
import { oncePerRun } from './once-per-run.js';
import type { IngestChunkDeps, IngestOutcome } from './ingest-chunk-deps.js';
import type { WindowLearner } from './window-learner.js';

/** Does what `step` says for `chunk`: returns how the job ended, or throws for BullMQ. */
export type StepInterpreter = (
  step: ChunkStep,
  chunk: ClaimedChunk,
  attempts: number,
  job: Job<IngestJobData>,
  token: string | undefined,
) => Promise<IngestOutcome>;

/**
 * The ingest job's step interpreter: the one place the ledger and BullMQ hear of a chunk's
 * outcome (the chunk released, failed, split, its run stopped, waiting or closed; the job
 * delayed, paused or rethrown).
 */
export function createStepInterpreter(
  deps: Pick<IngestChunkDeps, 'db' | 'quotaRecheckMs' | 'admission' | 'dispatch'>,
  parts: {
    readonly log: Logger;
    readonly closer: RunCloser;
    readonly learner: WindowLearner;
  },
): StepInterpreter {
  const { log, closer, learner } = parts;
  // One line per spent window and reset in this process, not one per job held.
  let holdSaid = '';
  // One line per run and cause in this process for a failure every slot meets (a refused key).
  const firstTime = oncePerRun();

  const act: StepInterpreter = async (step, chunk, attempts, job, token) => {
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
        closer.closeSoon(runId);
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
        // The service's "quota spent" answered a call that was sent: it counts in the run.
        await releaseChunk(deps.db, chunkId, { callMade: step.said });
        const reason = quotaHoldReason(hold);
        await markRunWaiting(deps.db, runId, reason, new Date(hold.untilMs), hold.refusedByService);
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
        // A 429 or 422 answered a call that was sent; the call budget's pause made none.
        await releaseChunk(deps.db, chunkId, { callMade: step.code !== undefined });
        if (step.code) {
          log.warn(
            { chunkId, code: step.code, pauseMs: step.ms },
            'throttled: pausing all workers',
          );
        }
        return deps.admission.pause(step.ms, step.code ? 'throttled' : 'budget');
      case 'release':
        await releaseChunk(deps.db, chunkId, { callMade: step.answered === true });
        // ABORTED: the worker is shutting down; the job goes back for another worker.
        if (step.error) throw step.error;
        return 'skipped';
      case 'stop-run':
        // The 401 answered a call that was sent: the run counts it, as the quota does.
        await releaseChunk(deps.db, chunkId, { callMade: true });
        await stopRun(deps.db, runId, step.code, step.message);
        if (firstTime(runId, step.code)) log.error({ runId, code: step.code }, step.message);
        throw new UnrecoverableError(step.message);
      case 'block-dataset':
        await recordChunkError(deps.db, chunkId, 'fail', {
          attempts,
          code: step.code,
          message: step.message,
        });
        await blockDataset(deps.db, runId, chunk.dataset, step.message);
        await closer.close(runId);
        throw new UnrecoverableError(step.message);
      case 'split': {
        const known =
          step.code === 'RANGE_TOO_LONG' ? await learner.learn(chunk, 'refused') : undefined;
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
        await closer.close(runId);
        log.warn({ chunkId, code, attempts }, 'chunk failed');
        return 'failed';
      }
    }
  };
  return act;
}
