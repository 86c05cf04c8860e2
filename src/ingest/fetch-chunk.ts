import type { ClaimedChunk } from '../ledger/claim-chunk.js';
import type { PollenPayload, WeatherPayload } from '../service/models.js';
import type { ServiceClient } from '../service/service-client.js';
import { isServiceError } from '../service/service-error.js';
import type { ChunkLanding } from '../warehouse/fact-writer.js';
import { HISTORY_STARTS } from '../windows/dataset-coverage.js';
import { clipWindow } from '../windows/hour-ranges.js';
import { lastCompleteHourEnd } from '../windows/tile-windows.js';

/** A claimed chunk, as the fetch needs it. */
export interface ChunkToFetch extends Pick<
  ClaimedChunk,
  'chunkId' | 'runId' | 'dataset' | 'location' | 'window'
> {
  /** Attempts made so far, this one included. */
  readonly attempts: number;
  /** The re-fetch policy allows another call if hours are missing from this answer. */
  readonly refetchAllowed: boolean;
}

/**
 * Makes the one history request of a chunk (pollen by place for a location that asked for it)
 * and turns the answer into a landing. "No data"
 * and "not covered" become done chunks with zero rows; a trimmed (206) answer becomes an
 * incomplete landing that keeps its rows. Every other error is thrown for the caller's retry
 * policy to decide on (by `code` and `retryable`).
 */
export async function fetchChunk(
  client: ServiceClient,
  chunk: ChunkToFetch,
  options: { readonly speciesRisk?: boolean } = {},
): Promise<ChunkLanding> {
  const startedAt = new Date();
  const base = {
    chunkId: chunk.chunkId,
    runId: chunk.runId,
    // The hours the answer should hold: within the dataset's history, before the current hour.
    expected: clipWindow(
      chunk.window,
      HISTORY_STARTS[chunk.dataset],
      lastCompleteHourEnd(startedAt),
    ),
    refetchAllowed: chunk.refetchAllowed,
    locationId: chunk.location.locationId,
    window: chunk.window,
    calls: 1,
    attempts: chunk.attempts,
    startedAt,
  };
  const query = {
    lat: chunk.location.lat,
    lng: chunk.location.lng,
    from: chunk.window.from,
    to: chunk.window.to,
  };
  try {
    if (chunk.dataset === 'pollen') {
      const risk = options.speciesRisk ? { speciesRisk: true } : {};
      const { place, ingestByPlace } = chunk.location;
      // A location registered by place may be ingested by place (an option); coordinates
      // remain the default. Weather has coordinate endpoints only.
      const payload: PollenPayload =
        ingestByPlace && place
          ? await client.pollenHistoryByPlace({
              place,
              from: chunk.window.from,
              to: chunk.window.to,
              ...risk,
            })
          : await client.pollenHistoryByLatLng({ ...query, ...risk });
      return {
        ...base,
        dataset: 'pollen',
        payload,
        outcome: 'rows',
        complete: true,
        httpStatus: 200,
      };
    }
    const payload: WeatherPayload = await client.weatherHistory(query);
    return {
      ...base,
      dataset: 'weather',
      payload,
      outcome: 'rows',
      complete: true,
      httpStatus: 200,
    };
  } catch (error) {
    if (isServiceError(error, 'NO_DATA') || isServiceError(error, 'NOT_COVERED')) {
      const outcome = error.code === 'NO_DATA' ? 'no_data' : 'not_covered';
      const httpStatus = error.httpStatus ?? 200;
      return chunk.dataset === 'pollen'
        ? { ...base, dataset: 'pollen', payload: undefined, outcome, complete: true, httpStatus }
        : { ...base, dataset: 'weather', payload: undefined, outcome, complete: true, httpStatus };
    }
    if (isServiceError(error, 'PARTIAL') && error.partial) {
      const partial = { ...base, outcome: 'rows' as const, complete: false, httpStatus: 206 };
      return chunk.dataset === 'pollen'
        ? { ...partial, dataset: 'pollen', payload: error.partial as PollenPayload }
        : { ...partial, dataset: 'weather', payload: error.partial as WeatherPayload };
    }
    throw error;
  }
}
