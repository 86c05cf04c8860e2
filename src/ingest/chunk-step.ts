import type { QuotaHold } from '../admission/quota-gate.js';
import type { ChunkJobOutcome } from '../metrics/metrics-observer.js';
import type { LandingResult } from '../ledger/landing-decision.js';
import type { Outcome, PolicyCode } from './outcome-policy.js';
import type { ThrottleBackoff } from '../admission/throttle-backoff.js';

/**
 * What the job does next with its chunk: decided from the landing, or from the code of what was
 * thrown through `OUTCOME_POLICY`, before anything is done about it (`createStepInterpreter`
 * does it).
 */
export type ChunkStep =
  | { readonly kind: 'landed'; readonly result: LandingResult }
  | { readonly kind: 'refetch'; readonly result: LandingResult; readonly delayMs: number }
  /** `code` is absent when the call budget, not the service, asked for the pause. */
  | { readonly kind: 'pause-all'; readonly code: PolicyCode | undefined; readonly ms: number }
  | { readonly kind: 'stop-run'; readonly code: PolicyCode; readonly message: string }
  /** A calendar quota refused the call (`said`: the service said it is spent). */
  | { readonly kind: 'quota-hold'; readonly hold: QuotaHold; readonly said: boolean }
  | { readonly kind: 'block-dataset'; readonly code: PolicyCode; readonly message: string }
  /** `pieceHours`: the window a refused probe of an auto-window run goes back to. */
  | {
      readonly kind: 'split';
      readonly code: PolicyCode;
      readonly message: string;
      readonly pieceHours?: number;
    }
  /**
   * With `error`: rethrown for the worker to put the job back; without, the job is skipped.
   * `answered`: a call was sent and answered (from what looks like a wrong address): it counts.
   */
  | { readonly kind: 'release'; readonly error?: Error; readonly answered?: true }
  | {
      readonly kind: 'retry' | 'fail';
      readonly code: PolicyCode;
      readonly message: string;
      /** The landing recorded it already (a trimmed 206 answer): the ledger writes nothing more. */
      readonly landed: boolean;
      readonly error: Error;
    };

/**
 * The table's outcome for a chunk whose call ended with `code` (the ingest job's reading of
 * `OUTCOME_POLICY`): `throttle` sizes a pause, `maxAttempts` ends the retries.
 */
export function stepOf(
  code: PolicyCode,
  outcome: Outcome,
  error: Error,
  call: { attempts: number; retryAfterMs: number | undefined },
  policy: { throttle: Pick<ThrottleBackoff, 'pauseMs'>; maxAttempts: number },
): ChunkStep {
  const { message } = error;
  const { attempts } = call;
  switch (outcome.kind) {
    case 'pause-all':
      return { kind: 'pause-all', code, ms: policy.throttle.pauseMs(outcome, call.retryAfterMs) };
    case 'stop-run':
      return { kind: 'stop-run', code, message };
    case 'block-dataset':
      return { kind: 'block-dataset', code, message };
    case 'split':
      return { kind: 'split', code, message };
    case 'release':
      return { kind: 'release', error };
    case 'retry':
      return {
        kind: attempts < policy.maxAttempts ? 'retry' : 'fail',
        code,
        message,
        landed: false,
        error,
      };
    // `fetchChunk` turns "no data" and "not covered" into landings: thrown, the chunk fails.
    case 'land-empty':
    case 'fail':
      return { kind: 'fail', code, message, landed: false, error };
  }
}

/** How a job whose next step is `step` ended, for `envdata_chunk_duration_seconds`. */
export function outcomeOfStep(step: ChunkStep): ChunkJobOutcome {
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
