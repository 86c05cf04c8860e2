import type { Admission } from '../admission/admission.js';
import { UnrecoverableError, type Job } from 'bullmq';
import type { Kysely } from 'kysely';
import { coerceError } from '../errors/coerce-error.js';
import { snapshotSourceOf } from '../datasets/snapshot-source-of.js';
import type { SnapshotJobData } from '../../jobs/snapshot-job.js';
import type { Logger } from '../logging/create-logger.js';
import type { ParsedPayload } from '../service/models.js';
import type { ServiceClient } from '../service/service-client.js';
import type { ShareField } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import type { SpeciesIds } from '../warehouse/species-ids.js';
import { writeSnapshot } from '../warehouse/write-snapshot.js';
import { recordSnapshotSetAside } from '../ledger/record-snapshot-set-aside.js';
import { outcomeOf } from './outcome-policy.js';
import { fillSnapshotSetAside } from './fill-snapshot-set-aside.js';
import { ledgerShareUnitMemory, shareUnitsFor, type ShareUnitMemory } from './share-unit-memory.js';
import type { ShapeRecorder } from './shape-recorder.js';
import { activeTraceParent } from '../tracing/tracing.js';

export interface FetchSnapshotDeps {
  readonly db: Kysely<Database>;
  readonly client: ServiceClient;
  readonly species: SpeciesIds;
  readonly logger: Logger;
  readonly speciesRisk: boolean;
  /**
   * The door every call goes through (`Admission`): the pace, then the calendar quota (a
   * snapshot is the sync's and may take the reserve; not counted in the call budget). One the
   * quota refuses (or the service's "quota exceeded") pauses every worker until the reset:
   * nothing else may call. A throttled answer pauses every worker through it too.
   */
  readonly admission: Pick<Admission, 'admit' | 'refused' | 'pauseMs' | 'through' | 'pause'>;
  /** Aborted when the worker stops: a job waiting for its call's slot goes back to the queue. */
  readonly stopping?: AbortSignal;
  /** Takes the shape of each answer (`envdata upstream`); without it, shapes are not kept. */
  readonly shapes?: ShapeRecorder;
}

/**
 * The snapshot job of a sync: one latest reading or forecast for one location, stored with the
 * sync's instant. What a code leads to is `OUTCOME_POLICY`'s, read for a snapshot:
 *
 * - `land-empty` (NO_DATA, NOT_COVERED): nothing is stored.
 * - the calendar quota spent (ENVDATA_QUOTA, or the service's "quota exceeded" without
 *   `Retry-After`): every worker pauses until the reset, no attempt used.
 * - `pause-all` (RATE_LIMITED, QUOTA_EXCEEDED): every worker pauses as for history, with the
 *   worker's one `ThrottleBackoff` (`Retry-After`, else a growing backoff with jitter); the job
 *   goes back without using an attempt.
 * - `release` (ABORTED): thrown for the worker to put the job back, no attempt used.
 * - `retry`: thrown, and BullMQ's attempts and backoff retry the snapshot.
 * - every other outcome (a refused key, a forbidden product, a query the service rejects):
 *   the snapshot fails at once, without the calls its remaining attempts would waste. It has no
 *   chunk to split and no run of its own to stop; the next sync asks again.
 */
export function createFetchSnapshotProcessor(deps: FetchSnapshotDeps) {
  const log = deps.logger.child({ component: 'snapshot' });
  const { admission } = deps;
  const shareUnits = ledgerShareUnitMemory(deps.db);
  return async (job: Job<SnapshotJobData>): Promise<number> => {
    // BullMQ's `process` span, active only now (before the first await): its children's parent.
    const trace = activeTraceParent();
    const { locationId, product, dataset } = job.data;
    const location = await deps.db
      .selectFrom('location')
      .select(['lat', 'lng'])
      .where('location_id', '=', locationId)
      .executeTakeFirst();
    if (!location) return 0;
    const source = snapshotSourceOf(dataset, product);
    const fetchedAt = new Date(job.data.fetchedAt);
    let payload: ParsedPayload<unknown>;
    const admitted = await admission.admit({ use: 'sync', budgeted: false, trace }, deps.stopping);
    if (admitted.kind === 'pace') throw admitted.error;
    if (admitted.kind !== 'permit') {
      const untilMs = admitted.kind === 'quota' ? admitted.hold.untilMs : Date.now() + admitted.ms;
      return admission.pause(Math.max(1, untilMs - Date.now()), 'budget');
    }
    const { permit } = admitted;
    try {
      payload = await source
        .fetch(deps.client.traced(trace), {
          location,
          options: { speciesRisk: deps.speciesRisk },
          fetchedAt,
        })
        .finally(() => permit.answered());
    } catch (error) {
      const { code, outcome, retryAfterMs } = outcomeOf(error);
      const hold = await admission.refused(permit, code, retryAfterMs);
      switch (outcome.kind) {
        case 'land-empty':
          return 0;
        case 'pause-all': {
          if (hold) {
            log.warn(
              {
                locationId,
                product,
                window: hold.window,
                until: new Date(hold.untilMs).toISOString(),
              },
              'the service says the quota is spent: every worker waits for its reset',
            );
            return admission.pause(Math.max(1, hold.untilMs - Date.now()), 'budget');
          }
          const pauseMs = admission.pauseMs(outcome, retryAfterMs);
          log.warn({ locationId, product, code, pauseMs }, 'throttled: pausing all workers');
          return admission.pause(pauseMs, 'throttled');
        }
        case 'release':
          throw error;
        case 'retry':
          log.warn({ locationId, product, dataset, code }, 'snapshot failed; will retry');
          throw error;
        default:
          log.warn({ locationId, product, dataset, code }, 'snapshot refused; not retried');
          throw new UnrecoverableError(coerceError(error).message);
      }
    }
    // A call got through: the next throttled answer starts a new burst.
    admission.through();
    // Latest and forecast answers are read as history is: the unit decided per field.
    const verdicts = source.shareUnitOf(payload);
    let taught: readonly ShareField[] = [];
    const memory: ShareUnitMemory = {
      recall: shareUnits.recall,
      learn: async (...told) => (taught = await shareUnits.learn(...told)),
    };
    const units = verdicts ? await shareUnitsFor(memory, dataset, product, verdicts) : {};
    await deps.shapes?.observe({ dataset, source: product, payload, verdicts });
    const unknown = verdicts
      ? Object.entries(verdicts).filter(
          ([field, verdict]) =>
            (verdict === 'cannot-tell' || verdict === 'contradictory') &&
            units[field as ShareField] === undefined,
        )
      : [];
    if (unknown.length > 0) {
      log.warn(
        { locationId, product, dataset, shareUnits: Object.fromEntries(unknown) },
        `snapshot ${unknown.map(([field]) => field).join(', ')} stored empty (0s as 0): ` +
          'contradictory, or only 0s and 1s with no earlier answer of this product telling the unit',
      );
    }
    const rows = await writeSnapshot(
      deps.db,
      deps.species,
      { locationId, dataset, product, fetchedAt },
      source.toRows(payload, units),
    );
    // The sync's run counts them (`sync --wait`, `status RUN`).
    const untold = unknown.filter(([, v]) => v === 'cannot-tell').map(([f]) => f as ShareField);
    if (unknown.length > 0) {
      await recordSnapshotSetAside(
        deps.db,
        {
          runId: job.data.runId,
          locationId,
          source: `${dataset}_${product}`,
          fetchedAt,
          unitUntold: untold,
        },
        source.setAside(payload, units),
      );
    }
    // The fields this answer taught fill what earlier snapshots set aside; the fields it set
    // aside are filled at once if another worker taught them meanwhile (its fill ran before
    // they were recorded).
    const fill = [...new Set([...taught, ...untold])];
    if (fill.length > 0) await fillSetAside(fill);
    return rows;

    /** Never a call; a failure leaves the values listed as set aside, for the next teacher. */
    async function fillSetAside(fields: readonly ShareField[]): Promise<void> {
      try {
        await fillSnapshotSetAside(deps.db, log, { dataset, product, fields });
      } catch (thrown) {
        log.warn(
          { dataset, product, fields, err: coerceError(thrown) },
          'snapshot shares set aside could not be filled now; the next answer that tells the unit fills them',
        );
      }
    }
  };
}
