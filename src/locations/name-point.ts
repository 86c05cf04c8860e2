import { isServiceError } from '../service/service-error.js';
import type { ServiceClient } from '../service/service-client.js';
import { serviceFailure } from './locate-place.js';
import { matchCountryCode, matchLabel, matchName } from './match-name.js';

/** What reverse geocoding says a point is called. */
export interface PointName {
  readonly name: string;
  readonly countryCode: string | null;
  /** The service's full label, `Mitte, State of Berlin, Germany`. */
  readonly label: string | undefined;
}

/**
 * Names a point through the service's reverse geocoding (one call): the best match's city.
 * `undefined` when the service knows no named place there ("Data not available", or matches
 * without a name). Any other service failure is rethrown with the point in the message.
 */
export async function namePoint(
  client: Pick<ServiceClient, 'reverseGeocode'>,
  lat: number,
  lng: number,
): Promise<PointName | undefined> {
  try {
    const payload = await client.reverseGeocode({ lat, lng });
    for (const match of payload.records) {
      const name = matchName(match);
      if (name !== undefined) {
        return { name, countryCode: matchCountryCode(match), label: matchLabel(match) };
      }
    }
    return undefined;
  } catch (error) {
    if (isServiceError(error, 'NO_DATA')) return undefined;
    throw serviceFailure(`could not reverse geocode ${lat}, ${lng}`, error);
  }
}
