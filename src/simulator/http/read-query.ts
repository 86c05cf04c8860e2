import { EnvdataError } from '../../errors/envdata-error.js';
import { RANGE_TOO_LONG_MESSAGE } from '../render/response-text.js';
import type { RequestContext } from './answer.js';

/**
 * Reading and validating query parameters the way the service does. A bad or missing
 * parameter throws `EnvdataError('INVALID_QUERY')`, which the request handler answers with
 * 400 `{"message": …}`.
 */

export function invalidQuery(message: string): EnvdataError {
  return new EnvdataError('INVALID_QUERY', message);
}

/** A decimal number as people write coordinates: no hex, no `Infinity`. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** `lat` and `lng`, numbers within [-90, 90] and [-180, 180]. */
export function readCoordinates(params: URLSearchParams): { lat: number; lng: number } {
  return { lat: readNumber(params, 'lat', 90), lng: readNumber(params, 'lng', 180) };
}

function readNumber(params: URLSearchParams, name: string, bound: number): number {
  const text = params.get(name);
  if (text === null || text.trim() === '') throw invalidQuery(`${name} is required`);
  const value = DECIMAL.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value < -bound || value > bound) {
    throw invalidQuery(`${name} must be a number between -${bound} and ${bound}`);
  }
  return value;
}

/** `place`, a non-empty name of at most 200 characters. */
export function readPlace(params: URLSearchParams): string {
  const place = params.get('place')?.trim() ?? '';
  if (place === '') throw invalidQuery('place is required');
  if (place.length > 200) throw invalidQuery('place must be at most 200 characters');
  return place;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z?$/;

/**
 * `from` and `to`, written `YYYY-MM-DD hh:mm:ss` (UTC), `to` after `from` and at most
 * `maxRangeHours` later. Returns epoch seconds; `to` is exclusive.
 */
function readRange(
  params: URLSearchParams,
  maxRangeHours: number,
  rangeTooLongMessage: string,
): { fromS: number; toS: number } {
  const fromS = readDateTime(params, 'from');
  const toS = readDateTime(params, 'to');
  if (toS <= fromS) throw invalidQuery('to must be after from');
  if (toS - fromS > maxRangeHours * 3600) throw invalidQuery(rangeTooLongMessage);
  return { fromS, toS };
}

/** The range of a history request (`readRange`, refused as the service refuses it); none for the others. */
export function readHistoryRange(ctx: RequestContext): { fromS: number; toS: number } | undefined {
  return ctx.endpoint.operation.endsWith('-history')
    ? readRange(ctx.params, ctx.maxRangeHours, RANGE_TOO_LONG_MESSAGE)
    : undefined;
}

function readDateTime(params: URLSearchParams, name: string): number {
  const text = params.get(name);
  if (text === null || text.trim() === '') throw invalidQuery(`${name} is required`);
  const m = DATE_TIME.exec(text.trim());
  if (m) {
    const [, y, mo, d, h, mi, s] = m.map(Number) as [number, ...number[]];
    const ms = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
    const back = new Date(ms);
    if (
      back.getUTCMonth() === mo! - 1 &&
      back.getUTCDate() === d &&
      back.getUTCHours() === h &&
      back.getUTCMinutes() === mi &&
      back.getUTCSeconds() === s
    ) {
      return Math.floor(ms / 1000);
    }
  }
  throw invalidQuery(`${name} must be a date written YYYY-MM-DD hh:mm:ss`);
}

/** `speciesRisk`: `True`/`False` in any case, or 1/0. Default false. */
export function readSpeciesRisk(params: URLSearchParams): boolean {
  const text = params.get('speciesRisk');
  if (text === null) return false;
  const value = text.trim().toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0' || value === '') return false;
  throw invalidQuery('speciesRisk must be True or False');
}

/** `units`: `si` → SI; absent, `us` or `imperial` → imperial, the service's default. */
export function readUnits(params: URLSearchParams): 'si' | 'imperial' {
  const text = params.get('units');
  if (text === null) return 'imperial';
  const value = text.trim().toLowerCase();
  if (value === 'si') return 'si';
  if (value === 'us' || value === 'imperial' || value === '') return 'imperial';
  throw invalidQuery("units must be 'si' (or omitted for imperial units)");
}

/** Rejects a parameter the endpoint does not take (`units` on pollen, `speciesRisk` on weather). */
export function rejectParameter(params: URLSearchParams, name: string, accepted: string): void {
  if (params.has(name)) throw invalidQuery(`${name} is accepted by ${accepted} endpoints only`);
}
