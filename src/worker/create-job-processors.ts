import { Worker } from 'bullmq';
import type { Uses } from '../runtime/app-resources.js';
import { CallBudget, queueLimiter, splitRateLimits } from '../dispatch/call-budget.js';
import { CallPacer } from '../dispatch/call-pacer.js';
import { QuotaGate } from '../dispatch/quota-gate.js';
import { historyWindowScope } from '../dispatch/history-window-scope.js';
import { FactWriter } from '../landing/fact-writer.js';
import { LandingBatcher } from '../landing/landing-batcher.js';
import { createFetchSnapshotProcessor } from '../ingest/fetch-snapshot-job.js';
import { createIngestChunkProcessor } from '../ingest/ingest-chunk-job.js';
import { ShapeRecorder } from '../ingest/shape-recorder.js';
import { ThrottleBackoff } from '../ingest/throttle-backoff.js';
import { SpeciesIds } from '../warehouse/species-ids.js';
import type { RateLimitWaitReason } from '../metrics/metrics-observer.js';
import type { JobProcessors } from './route-job.js';

/** What the processors need of the worker that runs them. */
export interface ProcessorHooks {
  readonly concurrency: number;
  /** Aborted when closing starts: calls and waits in flight give up. */
  readonly stopping: AbortSignal;
  /** Pauses every worker on the queue (BullMQ's `worker.rateLimit`). */
  readonly pauseWorkers: (ms: number) => Promise<void>;
  /** Queues the jobs of chunks a split made (the feeder). */
  readonly dispatch: (chunkIds: readonly number[]) => Promise<unknown>;
  /** Tops the queue up: a history window was learned, so more chunks may be due. */
  readonly feed: () => void;
}

/** The two processors and what the worker itself keeps of what they share. */
export interface WorkerProcessors extends JobProcessors {
  /** Lands the chunks' rows in batches; drained when the worker closes. */
  readonly batcher: LandingBatcher;
  /** Takes the shape of every answer; its counts are flushed when the worker closes. */
  readonly shapes: ShapeRecorder;
  /** Spaces this process's calls of the tightest rule, when it is paced: its margin is measured. */
  readonly pacer: CallPacer | undefined;
  /** BullMQ's limiter: the tightest rule when it is not paced, else one that binds nothing. */
  readonly limiter: { max: number; duration: number };
}

/**
 * The processors of both job kinds, sharing one landing batcher, call budget, quota gate, pacer
 * and throttle backoff: the limits hold for the process, whichever kind makes the call. Throws
 * `CONFIG_INVALID` without ENVDATA_API_KEY, before anything is created.
 */
export function createJobProcessors(
  app: Uses<'config' | 'db' | 'logger' | 'observers' | 'outages' | 'queues' | 'serviceClient'>,
  hooks: ProcessorHooks,
): WorkerProcessors {
  const { config, logger, observers } = app;
  const client = app.serviceClient;
  const windowScope = historyWindowScope(config);
  const { limiter, others } = splitRateLimits(config.rateLimits);
  const budget = new CallBudget(app.queues.callCounter(), others);
  const quota = new QuotaGate(app.queues.quotaCounter(), config.quota);
  // The tightest rule is paced at each call when it can be (see CallPacer); BullMQ's limiter
  // then binds nothing and only carries the pauses of 429s.
  const pacer = CallPacer.for(app.queues.callSlots(), limiter);
  const writer = new FactWriter(app.db, {
    archiveRaw: config.ingest.archiveRaw,
    observer: observers,
  });
  const batcher = new LandingBatcher(writer, {
    maxBatch: Math.max(1, Math.min(32, hooks.concurrency)),
    maxWaitMs: 15,
  });
  // Both job kinds pause every worker on a throttled answer: one burst, one growing pause.
  const { maxPauseMs } = config.worker;
  const throttle = new ThrottleBackoff(Math.random, maxPauseMs);
  // The one place a pause of every worker is set: never beyond ENVDATA_MAX_PAUSE, whoever
  // asked (a header, the backoff, the call budget), so no answer can stop ingestion for long.
  const pauseAll = async (ms: number, reason: RateLimitWaitReason): Promise<never> => {
    observers.rateLimitWait(reason);
    await hooks.pauseWorkers(Math.min(ms, maxPauseMs));
    throw Worker.RateLimitError();
  };
  const shapes = new ShapeRecorder(app.db, {
    observer: observers,
    logger,
    driftPolicy: config.ingest.driftPolicy,
  });
  const chunks = createIngestChunkProcessor({
    db: app.db,
    client,
    landings: batcher,
    budget,
    quota,
    quotaRecheckMs: config.worker.maxPauseMs,
    pacer,
    stopping: hooks.stopping,
    logger,
    maxAttempts: config.worker.maxAttempts,
    refetchAttempts: config.ingest.refetchAttempts,
    rechecks: {
      recheckMs: config.ingest.recheckMs,
      noDataRecheckMs: config.ingest.noDataRecheckMs,
    },
    refetchDelayMs: config.ingest.refetchDelayMs,
    baseUrl: config.service.baseUrl,
    speciesRisk: config.ingest.speciesRisk,
    pauseAll,
    throttle,
    dispatch: hooks.dispatch,
    outages: app.outages,
    observer: observers,
    shapes,
    ...(windowScope && { windowScope, windowLearned: hooks.feed }),
  });
  const snapshots = createFetchSnapshotProcessor({
    db: app.db,
    client,
    species: new SpeciesIds(),
    logger,
    speciesRisk: config.ingest.speciesRisk,
    pauseAll,
    throttle,
    pacer,
    stopping: hooks.stopping,
    quota,
    shapes,
  });
  return {
    chunks,
    snapshots,
    batcher,
    shapes,
    pacer,
    limiter: queueLimiter(pacer ? undefined : limiter),
  };
}
