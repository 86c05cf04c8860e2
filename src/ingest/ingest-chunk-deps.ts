import type { Kysely } from 'kysely';
import type { Admission } from '../admission/admission.js';
import type { ClaimRechecks } from '../ledger/claim-chunk.js';
import type { Logger } from '../logging/create-logger.js';
import type { MetricsObserver } from '../metrics/metrics-observer.js';
import type { ServiceClient } from '../service/service-client.js';
import type { Database } from '../warehouse/schema.js';
import type { WindowScope } from '../windows/learned-window.js';
import type { LandingBatcher } from '../landing/landing-batcher.js';
import type { ShapeRecorder } from './shape-recorder.js';

/** What the ingest job is given (`createIngestChunkProcessor`); its parts take what they use. */
export interface IngestChunkDeps {
  readonly db: Kysely<Database>;
  readonly client: ServiceClient;
  /**
   * Lands each chunk (facts, quarantine, archive, coverage and chunk state in one transaction),
   * grouped with the chunks other jobs of the process land at about the same time.
   */
  readonly landings: Pick<LandingBatcher, 'land'>;
  /**
   * The door every call goes through (`Admission`): the pace, the calendar quotas with the sync's
   * reserve (ENVDATA_QUOTA, ENVDATA_SYNC_RESERVE) and the call budget. A chunk the quota refuses
   * goes back to the queue, delayed, no attempt used, and its run shows why; the call budget
   * spent or a throttled answer pauses every worker through it (`Admission.pause`).
   */
  readonly admission: Pick<Admission, 'admit' | 'refused' | 'pauseMs' | 'through' | 'pause'>;
  /** Longest a held job sleeps before it looks at the quota again (ENVDATA_MAX_PAUSE). */
  readonly quotaRecheckMs?: number;
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
  /** Takes the shape of each answer (`envdata upstream`); without it, shapes are not kept. */
  readonly shapes?: ShapeRecorder;
  /** Told when an answer taught a longer window or a refusal (the feeder may plan the next). */
  readonly windowLearned?: () => void;
}

/** `settled`: every hour of the chunk was settled when claimed; done without a call. */
export type IngestOutcome = 'landed' | 'skipped' | 'settled' | 'split' | 'failed';
