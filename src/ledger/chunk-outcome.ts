import type { Kysely, Transaction } from 'kysely';
import type { Dataset, Window } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import { blockDataset } from './block-dataset.js';
import type { ClaimedChunk } from './claim-chunk.js';
import { markRunWaiting } from './mark-run-waiting.js';
import { recordChunkError } from './record-chunk-error.js';
import type { RunCloser } from './run-closer.js';
import { splitChunk, splitWindows } from './split-chunk.js';
import { stopRun } from './stop-run.js';

/**
 * What an ingest job's step asks of the ledger for its chunk, every outcome but a landing
 * (which `decideLanding` decides):
 * - `close`: the chunk landed; its run is checked for closing, deferred.
 * - `release`: the chunk goes back, no attempt used (`callMade`: a call was sent and answered,
 *   429, 422, a wrong address: it counts in the run's calls).
 * - `wait`: a calendar quota refused the call: the chunk goes back, the run shows why and until
 *   when (`reason`, `until`; `refusedByService`: the service refused below envdata's cap).
 * - `stop`: the key was refused (401): the chunk goes back and the run stops.
 * - `block`: the key may not use the dataset (403): the chunk fails, the run blocks the dataset.
 * - `split`: the window is too long or the answer too large: the chunk is cut in windows of
 *   `pieceHours`, else halves; a chunk of one hour fails.
 * - `retry` / `fail`: the call did not land: the chunk waits again, or fails; `landed`: the
 *   landing recorded it already (a trimmed 206 answer), nothing more is written.
 */
export type ChunkOutcomeStep =
  | { readonly kind: 'close' }
  | { readonly kind: 'release'; readonly callMade: boolean }
  | {
      readonly kind: 'wait';
      readonly callMade: boolean;
      readonly reason: string;
      readonly until: Date;
      readonly refusedByService?: { readonly counted: number; readonly limit: number };
    }
  | { readonly kind: 'stop' | 'block'; readonly code: string; readonly message: string }
  | {
      readonly kind: 'split';
      readonly code: string;
      readonly message: string;
      readonly pieceHours?: number;
    }
  | {
      readonly kind: 'retry' | 'fail';
      readonly code: string;
      readonly message: string;
      readonly landed: boolean;
    };

/** The claimed chunk as its outcome needs it. */
export type OutcomeChunk = Pick<
  ClaimedChunk,
  'chunkId' | 'runId' | 'dataset' | 'location' | 'window'
>;

/** What becomes of the chunk's row. */
export type ChunkWrite =
  | { readonly kind: 'none' }
  | { readonly kind: 'release'; readonly callMade: boolean }
  | {
      readonly kind: 'error';
      readonly status: 'queued' | 'failed';
      readonly attempts: number;
      readonly code: string;
      readonly message: string;
    }
  | {
      readonly kind: 'split';
      readonly windows: readonly Window[];
      readonly pieceHours: number | undefined;
      readonly attempts: number;
      readonly code: string;
    };

/** What becomes of the run's row. */
export type RunWrite =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'wait';
      readonly reason: string;
      readonly until: Date;
      readonly refusedByService?: { readonly counted: number; readonly limit: number };
    }
  | { readonly kind: 'stop'; readonly code: string; readonly message: string }
  | { readonly kind: 'block'; readonly dataset: Dataset; readonly message: string };

/** The ledger's decision on a step: one write in one transaction, then the run's close. */
export interface ChunkOutcomeDecision {
  readonly chunk: OutcomeChunk;
  readonly chunkWrite: ChunkWrite;
  readonly runWrite: RunWrite;
  /** The run is checked for closing after the write: `now` (the job waits) or `soon`. */
  readonly close: 'now' | 'soon' | undefined;
  /** What the step came to: its own kind, or `fail` for a split of a one-hour chunk. */
  readonly kind: ChunkOutcomeStep['kind'];
  /** The one wording of what happened, for the job's log and the error it throws. */
  readonly message: string | undefined;
}

/**
 * What the ledger writes for `step` of `chunk` at attempt `attempts`: the chunk's row, the run's
 * row and the run's close, decided here as `decideLanding` decides landings; no I/O.
 */
export function decideChunkOutcome(
  step: ChunkOutcomeStep,
  chunk: OutcomeChunk,
  attempts: number,
): ChunkOutcomeDecision {
  const none = { kind: 'none' } as const;
  const decision = (
    chunkWrite: ChunkWrite,
    runWrite: RunWrite,
    close: ChunkOutcomeDecision['close'],
    message?: string,
    kind: ChunkOutcomeStep['kind'] = step.kind,
  ): ChunkOutcomeDecision => ({ chunk, chunkWrite, runWrite, close, kind, message });
  const failed = (code: string, message: string, runWrite: RunWrite = none) =>
    decision(
      { kind: 'error', status: 'failed', attempts, code, message },
      runWrite,
      'now',
      message,
      'fail',
    );
  switch (step.kind) {
    case 'close':
      return decision(none, none, 'soon');
    case 'release':
      return decision({ kind: 'release', callMade: step.callMade }, none, undefined);
    case 'wait': {
      const { reason, until, refusedByService } = step;
      return decision(
        { kind: 'release', callMade: step.callMade },
        { kind: 'wait', reason, until, ...(refusedByService && { refusedByService }) },
        undefined,
      );
    }
    case 'stop': {
      // The client's message says what was refused; what it means for the run is said here.
      const message = `${step.message}; the run stops until the key is fixed`;
      // The 401 answered a call that was sent: the run counts it, as the quota does.
      return decision(
        { kind: 'release', callMade: true },
        { kind: 'stop', code: step.code, message },
        undefined,
        message,
      );
    }
    case 'block':
      return {
        ...failed(step.code, step.message, {
          kind: 'block',
          dataset: chunk.dataset,
          message: step.message,
        }),
        kind: 'block',
      };
    case 'split': {
      const windows = splitWindows(chunk.window, step.pieceHours);
      if (windows.length === 0) {
        return failed(
          step.code,
          step.code === 'RESPONSE_TOO_LARGE'
            ? `${step.message} (one hour is the shortest window: only a higher limit helps)`
            : step.message,
        );
      }
      const { code, pieceHours } = step;
      return decision({ kind: 'split', windows, pieceHours, attempts, code }, none, undefined);
    }
    case 'retry':
    case 'fail': {
      const { code, message } = step;
      const status = step.kind === 'retry' ? 'queued' : 'failed';
      const chunkWrite: ChunkWrite = step.landed
        ? none
        : { kind: 'error', status, attempts, code, message };
      return decision(chunkWrite, none, step.kind === 'fail' ? 'now' : undefined, message);
    }
  }
}

/**
 * Writes `decision` (`decideChunkOutcome`): the run's row, then the chunk's (the order of a
 * landing's locks), in one transaction; then the run's close through `closer`, which proves it
 * complete in a transaction of its own. Returns the ids of a split's new chunks, to dispatch.
 */
export async function recordChunkOutcome(
  db: Kysely<Database>,
  closer: Pick<RunCloser, 'close' | 'closeSoon'>,
  decision: ChunkOutcomeDecision,
): Promise<readonly number[]> {
  const { chunk, chunkWrite, runWrite } = decision;
  let halves: readonly number[] = [];
  if (chunkWrite.kind !== 'none' || runWrite.kind !== 'none') {
    halves = await db.transaction().execute(async (trx) => {
      await writeRun(trx, chunk, runWrite);
      return writeChunk(trx, chunk, chunkWrite);
    });
  }
  // A split whose every window was planned and finished already leaves nothing to wait for.
  const close = chunkWrite.kind === 'split' && halves.length === 0 ? 'now' : decision.close;
  if (close === 'now') await closer.close(chunk.runId);
  else if (close === 'soon') closer.closeSoon(chunk.runId);
  return halves;
}

async function writeRun(trx: Transaction<Database>, chunk: OutcomeChunk, run: RunWrite) {
  switch (run.kind) {
    case 'none':
      return;
    case 'wait':
      return markRunWaiting(trx, chunk.runId, run.reason, run.until, run.refusedByService);
    case 'stop':
      await stopRun(trx, chunk.runId, run.code, run.message);
      return;
    case 'block':
      return blockDataset(trx, chunk.runId, run.dataset, run.message);
  }
}

async function writeChunk(
  trx: Transaction<Database>,
  chunk: OutcomeChunk,
  write: ChunkWrite,
): Promise<readonly number[]> {
  switch (write.kind) {
    case 'none':
      return [];
    case 'release':
      // Back to waiting without counting an attempt; a call that was sent counts in its calls.
      await trx
        .updateTable('chunk')
        .set((eb) => ({
          status: 'queued',
          calls: write.callMade ? eb('calls', '+', 1) : eb.ref('calls'),
        }))
        .where('chunk_id', '=', chunk.chunkId)
        .where('status', '=', 'running')
        .execute();
      return [];
    case 'error': {
      const { attempts, code, message } = write;
      const outcome = write.status === 'queued' ? 'retry' : 'fail';
      await recordChunkError(trx, chunk.chunkId, outcome, { attempts, code, message });
      return [];
    }
    case 'split':
      return splitChunk(trx, chunk, write.attempts, write.code, write.pieceHours);
  }
}
