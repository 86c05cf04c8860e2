import { performance } from 'node:perf_hooks';
import type { Job } from 'bullmq';
import type { IngestJobData } from '../../jobs/ingest-chunk-job.js';
import { claimChunk } from '../ledger/claim-chunk.js';
import { RunCloser } from '../ledger/run-closer.js';
import type { ChunkJobOutcome } from '../metrics/metrics-observer.js';
import { createStepInterpreter } from './chunk-step-interpreter.js';
import { outcomeOfStep } from './chunk-step.js';
import { createChunkFetcher } from './fetch-and-land.js';
import { fillSetAsideShares } from '../landing/fill-set-aside-shares.js';
import { activeTraceParent, inSpan, recordSpan, traceIdOf } from '../tracing/tracing.js';
import type { IngestChunkDeps, IngestOutcome } from './ingest-chunk-deps.js';
import { WindowLearner } from './window-learner.js';
import { wrongAddressCheck } from './wrong-address-check.js';

/**
 * The ingest job: claim the chunk in the ledger, make its one history request, land the rows,
 * the coverage and the chunk's state in one transaction. What a code leads to is
 * `OUTCOME_POLICY`'s; here is what each outcome means for a chunk:
 *
 * - an answer lacking hours (or with hours quarantined): what arrived lands; the chunk is fetched
 *   again after a growing delay, up to `refetchAttempts` times, then the hours still absent are
 *   recorded as missing upstream (or quarantined) and the chunk is done.
 * - `land-empty` (NO_DATA, NOT_COVERED): the chunk is done with zero rows (`fetchChunk`).
 * - `retry`: the chunk is fetched again after an exponential backoff with jitter (the job's
 *   options) up to `maxAttempts`, then fails. A PARTIAL (206) lands its trimmed rows, and its
 *   landing records the retry, or the failure at the last attempt (`decideLanding`).
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
 *
 * Composed of: the call and landing, which decide the next step (`createChunkFetcher`), the step
 * interpreter that has the ledger decide and write it (`decideChunkOutcome`) and moves the job
 * (`createStepInterpreter`), the window learner (`WindowLearner`), the
 * wrong-address check (`wrongAddressCheck`) and the run closer (`RunCloser`: a chunk that
 * finishes its run closes it, deferred so that chunks finishing together close it once).
 */
export function createIngestChunkProcessor(deps: IngestChunkDeps) {
  const log = deps.logger.child({ component: 'ingest' });
  const closer = new RunCloser(deps.db, {
    logger: log,
    // A run says it is done with the shares its first answers set aside filled, when a later
    // answer told their unit (from the archive, no call).
    beforeClose: async (runId) => {
      await fillSetAsideShares(deps.db, log, { runId });
    },
    ...(deps.outages && { outages: deps.outages }),
  });
  const learner = new WindowLearner(deps.db, deps.windowScope, log, deps.windowLearned);
  const checkAddress = wrongAddressCheck(deps.db, deps.baseUrl, log);
  const fetchAndLand = createChunkFetcher(deps, { learner, checkAddress });
  const act = createStepInterpreter(deps, { log, closer });

  const process = async (job: Job<IngestJobData>, token?: string): Promise<IngestOutcome> => {
    // BullMQ's `process` span, active only now (before the first await): carried by hand to
    // every span of the chunk below.
    const trace = activeTraceParent();
    const chunkId = job.data.chunkId;
    // Traced (inside BullMQ's `process` span): the wait in the queue, from the enqueue to now, on
    // the job's first start only (a retry's wait starts at its backoff, which BullMQ's span of it
    // shows); the call and landing; what the ledger made of it.
    if (job.attemptsStarted <= 1) {
      recordSpan('envdata.queue.wait', {
        parent: trace,
        startTime: new Date(job.timestamp),
        attributes: { 'envdata.chunk.id': chunkId },
      });
    }
    const chunk = await claimChunk(deps.db, chunkId, deps.rechecks, traceIdOf(trace));
    if (!chunk) return 'skipped';
    if ('settled' in chunk) {
      log.debug({ chunkId: chunk.chunkId, runId: chunk.runId }, 'chunk settled meanwhile: no call');
      closer.closeSoon(chunk.runId);
      return 'settled';
    }
    const started = performance.now();
    // `error` unless a step was decided: what was thrown on the way was not the service's.
    let outcome: ChunkJobOutcome = 'error';
    try {
      const attempts = job.attemptsMade + 1;
      const step = await fetchAndLand(chunk, attempts, trace);
      outcome = outcomeOfStep(step);
      const result = await inSpan(
        'envdata.ledger.outcome',
        async (span) => {
          const ended = await act(step, chunk, attempts, job, token, span.scope);
          span.setAttributes({ 'envdata.chunk.result': ended });
          return ended;
        },
        {
          parent: trace,
          attributes: {
            'envdata.chunk.id': chunk.chunkId,
            'envdata.chunk.step': step.kind,
            'envdata.chunk.outcome': outcome,
            'envdata.chunk.attempt': attempts,
            'envdata.error.code': 'code' in step ? step.code : undefined,
          },
        },
      );
      // A split that could not split failed.
      if (result === 'failed') outcome = 'failed';
      return result;
    } finally {
      deps.observer?.chunkFinished(chunk.dataset, outcome, (performance.now() - started) / 1_000);
    }
  };

  /** Closes the runs whose check is pending; call before closing the database. */
  const close = (): Promise<void> => closer.flush();

  return { process, close };
}
