import { datasetDefinition } from '../datasets/registry.js';
import type { ClaimedChunk } from '../ledger/claim-chunk.js';
import type { HistoryPayload, ParsedPayload } from '../service/models.js';
import type { ServiceClient } from '../service/service-client.js';
import { isServiceError } from '../service/service-error.js';
import { NO_FACTS } from '../warehouse/fact-table.js';
import { holdFacts } from '../normalize/hold-facts.js';
import type { ChunkLanding, ChunkRetries } from '../ledger/landing-decision.js';
import type { ShapeRecorder } from './shape-recorder.js';
import { shareUnitsFor, type ShareUnitMemory } from './share-unit-memory.js';
import { clipWindow } from '../windows/hour-ranges.js';
import { lastCompleteHourEnd } from '../windows/tile-windows.js';
import { inSpanSync, type TraceParent } from '../tracing/tracing.js';

/** A claimed chunk, as the fetch needs it. */
export interface ChunkToFetch extends Pick<
  ClaimedChunk,
  'chunkId' | 'runId' | 'dataset' | 'location' | 'window'
> {
  /** Attempts made so far, this one included. */
  readonly attempts: number;
  /** The chunk's retry policy, for the ledger to decide a re-fetch or a 206's retry by. */
  readonly retries: ChunkRetries;
}

/**
 * Makes the one history request of a chunk, as its dataset's definition says (pollen by place
 * for a location that asked for it), and turns the answer into a landing: normalized here, so
 * the warehouse receives fact rows only. "No data" and "not covered" become done chunks with
 * zero rows; a trimmed (206) answer becomes an incomplete landing that keeps its rows. Each
 * share field is read in the unit its values in the answer tell, learned in `shareUnits`; a
 * field that cannot tell takes the unit `shareUnits` remembers for it, else its values other
 * than 0 are quarantined (the rest of the record lands). An answer of a shape not accepted
 * under the drift policy `quarantine` or `freeze` lands held (`holdFacts`): archived, no fact
 * row, each hour quarantined until `envdata upstream accept`. Every
 * other error is thrown for the caller's retry policy to decide on (by `code` and `retryable`).
 */
export async function fetchChunk(
  client: ServiceClient,
  chunk: ChunkToFetch,
  options: {
    readonly speciesRisk?: boolean;
    /**
     * Where the share unit of each field is learned and recalled (`envdata.share_unit`);
     * without it, a field that cannot tell its unit is set aside.
     */
    readonly shareUnits?: ShareUnitMemory;
    /** Where the shape of each complete answer is taken and recorded (`envdata upstream`). */
    readonly shapes?: ShapeRecorder;
    /** The span of the chunk's job: the call's and the normalising's spans go under it. */
    readonly trace?: TraceParent | undefined;
  } = {},
): Promise<ChunkLanding> {
  const definition = datasetDefinition(chunk.dataset);
  const startedAt = new Date();
  const base = {
    chunkId: chunk.chunkId,
    runId: chunk.runId,
    dataset: chunk.dataset,
    // The hours the answer should hold: within the dataset's history, before the current hour.
    expected: clipWindow(chunk.window, definition.historyStart, lastCompleteHourEnd(startedAt)),
    retries: chunk.retries,
    locationId: chunk.location.locationId,
    window: chunk.window,
    calls: 1,
    attempts: chunk.attempts,
    startedAt,
  };
  let payload: HistoryPayload<ParsedPayload<unknown>>;
  try {
    payload = await definition.fetchHistory(client.traced(options.trace), {
      location: chunk.location,
      window: chunk.window,
      options: { speciesRisk: options.speciesRisk ?? false },
    });
  } catch (error) {
    if (isServiceError(error, 'NO_DATA') || isServiceError(error, 'NOT_COVERED')) {
      return {
        ...base,
        outcome: error.code === 'NO_DATA' ? 'no_data' : 'not_covered',
        complete: true,
        httpStatus: error.httpStatus ?? 200,
        facts: NO_FACTS,
        rawBody: undefined,
      };
    }
    throw error;
  }
  // Decided per field from the whole answer, else from the last answers that told that field.
  const verdicts = definition.shareUnitOf?.(payload);
  const shareUnits = verdicts
    ? await shareUnitsFor(options.shareUnits, chunk.dataset, 'history', verdicts)
    : {};
  // A trimmed (206) answer may lack what a whole one has: its shape says nothing sure.
  const shape = payload.complete
    ? await options.shapes?.observe({
        dataset: chunk.dataset,
        source: 'history',
        payload,
        verdicts,
        chunkId: chunk.chunkId,
      })
    : undefined;
  const facts = inSpanSync(
    'envdata.normalise',
    (span) => {
      const normalised = definition.toFacts(payload, chunk.window, shareUnits);
      if (span.recording) {
        span.setAttributes({
          'envdata.normalise.rows': normalised.tables.reduce((n, t) => n + t.rows.length, 0),
          'envdata.normalise.quarantined': normalised.quarantined.length,
        });
      }
      return normalised;
    },
    { parent: options.trace, attributes: { 'envdata.dataset': chunk.dataset } },
  );
  // A shape not accepted under `quarantine` or `freeze`: the answer is archived, its hours held
  // as quarantined, and never fetched again (the same shape would come back, paid for).
  const held = shape !== undefined && shape.policy !== 'evolve';
  return {
    ...base,
    ...(held && { held: true }),
    outcome: 'rows',
    complete: payload.complete,
    httpStatus: payload.complete ? 200 : 206,
    facts: held ? holdFacts(facts, shape.digest, shape.policy) : facts,
    rawBody: payload.rawBody,
    endpoint: payload.endpoint,
  };
}
