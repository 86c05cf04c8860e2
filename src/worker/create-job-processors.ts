import { Worker } from 'bullmq';
import type { Uses } from '../runtime/app-resources.js';
import { Admission, type PauseReason } from '../admission/admission.js';
import { admissionStores } from '../admission/admission-stores.js';
import { historyWindowScope } from '../dispatch/history-window-scope.js';
import { FactWriter } from '../landing/fact-writer.js';
import { LandingBatcher } from '../landing/landing-batcher.js';
import { createFetchSnapshotProcessor } from '../ingest/fetch-snapshot-job.js';
import { createIngestChunkProcessor } from '../ingest/ingest-chunk-job.js';
import { ShapeRecorder } from '../ingest/shape-recorder.js';
import { SpeciesIds } from '../warehouse/species-ids.js';
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
  /** The one door of every call (pace, quota, budget, pauses); its pacer's margin is measured. */
  readonly admission: Admission;
}

/**
 * The processors of both job kinds, sharing one landing batcher and one `Admission` (the pace,
 * quota, call budget and throttle backoff): the limits hold for the process, whichever kind
 * makes the call. Throws `CONFIG_INVALID` without ENVDATA_API_KEY, before anything is created.
 */
export function createJobProcessors(
  app: Uses<'config' | 'db' | 'logger' | 'observers' | 'outages' | 'queues' | 'serviceClient'>,
  hooks: ProcessorHooks,
): WorkerProcessors {
  const { config, logger, observers } = app;
  const client = app.serviceClient;
  const windowScope = historyWindowScope(config);
  const writer = new FactWriter(app.db, {
    archiveRaw: config.ingest.archiveRaw,
    archiveRetention: config.ingest.archiveRetentionDays !== undefined,
    observer: observers,
  });
  const batcher = new LandingBatcher(writer, {
    maxBatch: Math.max(1, Math.min(32, hooks.concurrency)),
    maxWaitMs: 15,
  });
  // The one place a pause of every worker is set: never beyond ENVDATA_MAX_PAUSE, whoever
  // asked (a header, the backoff, the call budget), so no answer can stop ingestion for long.
  const { maxPauseMs } = config.worker;
  const pauseAll = async (ms: number, reason: PauseReason): Promise<never> => {
    observers.rateLimitWait(reason);
    await hooks.pauseWorkers(Math.min(ms, maxPauseMs));
    throw Worker.RateLimitError();
  };
  // Both job kinds go through one door: one pace, one quota, one burst's growing pause.
  const admission = Admission.open(admissionStores(app.queues), config, pauseAll);
  const shapes = new ShapeRecorder(app.db, {
    observer: observers,
    logger,
    driftPolicy: config.ingest.driftPolicy,
  });
  const chunks = createIngestChunkProcessor({
    db: app.db,
    client,
    landings: batcher,
    admission,
    quotaRecheckMs: config.worker.maxPauseMs,
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
    admission,
    stopping: hooks.stopping,
    shapes,
  });
  return {
    chunks,
    snapshots,
    batcher,
    shapes,
    admission,
  };
}
