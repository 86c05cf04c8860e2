import type { GeocodeMatch, GeocodePayload } from './models.js';
import { parseJsonBody, type ParseContext, type PayloadSource } from './parse-envelope.js';
import { parsePayload } from './parse-payload.js';
import {
  RecordRejection,
  isJsonObject,
  readNumber,
  readObject,
  readString,
  show,
} from './record-fields.js';

/**
 * Parses the body of `/geocode/by-place` or `/geocode/reverse/by-lat-lng`: `data` is an array of
 * matches, best first. Throws `MALFORMED_RESPONSE` when the envelope does not fit; a match that
 * does not fit goes to `rejected`.
 */
export function parseGeocodeBody(body: string, source: PayloadSource = {}): GeocodePayload {
  const context: ParseContext = { rawBody: body, ...source };
  return parseGeocodeDocument(parseJsonBody(context), context);
}

/** Like `parseGeocodeBody`, for a body already parsed with `JSON.parse`. */
export function parseGeocodeDocument(json: unknown, context: ParseContext): GeocodePayload {
  return parsePayload(json, context, false, parseGeocodeMatch);
}

/**
 * One match: `lat`/`lng` required (numbers or numeric strings, in range), `address` optional.
 * A numeric `postalCode` is kept as its decimal text.
 */
export function parseGeocodeMatch(raw: unknown): GeocodeMatch {
  if (!isJsonObject(raw)) throw new RecordRejection('the match is not an object');
  const lat = requiredCoordinate(raw.lat, 'lat', 90);
  const lng = requiredCoordinate(raw.lng, 'lng', 180);
  const address = readObject(raw.address, 'address') ?? {};
  const postalCode =
    typeof address.postalCode === 'number'
      ? String(address.postalCode)
      : readString(address.postalCode, 'address.postalCode');
  return {
    lat,
    lng,
    label: readString(address.label, 'address.label'),
    countryCode: readString(address.countryCode, 'address.countryCode'),
    countryName: readString(address.countryName, 'address.countryName'),
    state: readString(address.state, 'address.state'),
    city: readString(address.city, 'address.city'),
    postalCode,
  };
}

function requiredCoordinate(value: unknown, field: string, limit: number): number {
  const number = readNumber(value, field);
  if (number === undefined) throw new RecordRejection(`${field} is missing`);
  if (Math.abs(number) > limit) {
    throw new RecordRejection(`${field} is outside [-${limit}, ${limit}]: ${show(value)}`);
  }
  return number;
}
