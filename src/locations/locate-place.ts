import { coerceError } from '../errors/coerce-error.js';
import { EnvdataError } from '../errors/envdata-error.js';
import { isServiceError } from '../service/service-error.js';
import type { ServiceClient } from '../service/service-client.js';
import { choosePlaceMatch, type PlaceChoice } from './choose-place-match.js';

/**
 * Geocodes a place through the service (one call) and decides which match it means
 * (`choosePlaceMatch`). "Data not available" (`NO_DATA`) is no match. Any other service failure
 * is rethrown with the place in the message and the service's `code` kept.
 */
export async function locatePlace(
  client: Pick<ServiceClient, 'geocode'>,
  place: string,
  country?: string | null,
): Promise<PlaceChoice> {
  try {
    const payload = await client.geocode({ place });
    return choosePlaceMatch(payload.records, country);
  } catch (error) {
    if (isServiceError(error, 'NO_DATA')) return { kind: 'none', elsewhere: [] };
    throw serviceFailure(`could not geocode "${place}"`, error);
  }
}

/** A service failure with what envdata was doing in front; code, retryable and cause kept. */
export function serviceFailure(doing: string, error: unknown): Error {
  if (!isServiceError(error)) return coerceError(error);
  return new EnvdataError(error.code, `${doing}: ${error.message}`, {
    retryable: error.retryable,
    details: { ...error.details, endpoint: error.endpoint, httpStatus: error.httpStatus },
    cause: error,
  });
}
