import type { Endpoint } from './endpoints.js';
import { formatServiceDateTime, parseServiceDateTime } from './service-date-time.js';
import { ServiceError } from './service-error.js';

/**
 * Checks a query against the rules of its endpoint and encodes it as a URL query string
 * (without `?`). Runs before any request: a query that breaks a rule throws `INVALID_QUERY`
 * (not retryable) listing every problem, and nothing is sent.
 *
 * Rules: `lat` in [-90, 90] and `lng` in [-180, 180], finite numbers, sent rounded to 4 decimals;
 * `place` a non-blank string, sent trimmed; `from`/`to` on historical endpoints only, each a
 * whole-second `Date` or `YYYY-MM-DD hh:mm:ss` (UTC), `from` strictly before `to`, sent as
 * `YYYY-MM-DD hh:mm:ss` URL-encoded; the endpoint's own options (`endpoint.options`): a boolean
 * one (`speciesRisk` on pollen endpoints) sent when given, a fixed one (`units=si` on weather
 * endpoints) always sent and refusing any other value. Any other key is refused, so a typo does
 * not silently drop an option.
 *
 * @example encodeQuery(ENDPOINTS.weatherLatest, { lat: 52.52, lng: 13.405 }) // 'lat=52.52&lng=13.405&units=si'
 */
export function encodeQuery(endpoint: Endpoint, query: unknown): string {
  const problems: string[] = [];
  if (typeof query !== 'object' || query === null || Array.isArray(query)) {
    throw invalidQuery(endpoint, ['the query must be an object']);
  }
  const q = query as Record<string, unknown>;
  const allowed = allowedKeys(endpoint);
  for (const key of Object.keys(q)) {
    if (!allowed.has(key) && q[key] !== undefined) {
      problems.push(
        `${key} is not accepted by ${endpoint.path} (accepted: ${[...allowed].join(', ')})`,
      );
    }
  }

  const parts: string[] = [];
  if (endpoint.location === 'latLng') {
    const lat = coordinate(q.lat, 'lat', 90, problems);
    const lng = coordinate(q.lng, 'lng', 180, problems);
    if (lat !== undefined && lng !== undefined) parts.push(`lat=${lat}`, `lng=${lng}`);
  } else {
    const place = q.place;
    if (typeof place !== 'string' || place.trim() === '') {
      problems.push(`place must be a non-blank string, got ${describe(place)}`);
    } else {
      parts.push(`place=${encodeURIComponent(place.trim())}`);
    }
  }

  if (endpoint.range) {
    const from = instant(q.from, 'from', problems);
    const to = instant(q.to, 'to', problems);
    if (from !== undefined && to !== undefined) {
      if (from.getTime() >= to.getTime()) {
        problems.push(
          `from (${formatServiceDateTime(from)}) must be before to (${formatServiceDateTime(to)})`,
        );
      } else {
        parts.push(
          `from=${encodeURIComponent(formatServiceDateTime(from))}`,
          `to=${encodeURIComponent(formatServiceDateTime(to))}`,
        );
      }
    }
  }

  for (const option of endpoint.options) {
    const value = q[option.key];
    if (option.type === 'boolean') {
      if (value === undefined) continue;
      if (typeof value === 'boolean') parts.push(`${option.key}=${String(value)}`);
      else problems.push(`${option.key} must be a boolean, got ${describe(value)}`);
    } else if (value === undefined || value === option.value) {
      parts.push(`${option.key}=${encodeURIComponent(option.value)}`);
    } else {
      problems.push(`${option.key} must be '${option.value}', got ${describe(value)}`);
    }
  }

  if (problems.length > 0) throw invalidQuery(endpoint, problems);
  return parts.join('&');
}

const KEY_SETS = new WeakMap<Endpoint, ReadonlySet<string>>();

function allowedKeys(endpoint: Endpoint): ReadonlySet<string> {
  let keys = KEY_SETS.get(endpoint);
  if (keys === undefined) {
    const list = endpoint.location === 'latLng' ? ['lat', 'lng'] : ['place'];
    if (endpoint.range) list.push('from', 'to');
    for (const option of endpoint.options) list.push(option.key);
    keys = new Set(list);
    KEY_SETS.set(endpoint, keys);
  }
  return keys;
}

function coordinate(
  value: unknown,
  name: 'lat' | 'lng',
  limit: number,
  problems: string[],
): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < -limit || value > limit) {
    problems.push(
      `${name} must be a finite number in [-${limit}, ${limit}], got ${describe(value)}`,
    );
    return undefined;
  }
  // Number(…toFixed(4)) drops trailing zeros and turns -0 into 0.
  return String(Number(value.toFixed(4)) + 0);
}

function instant(value: unknown, name: 'from' | 'to', problems: string[]): Date | undefined {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms)) {
      problems.push(`${name} is an invalid Date`);
      return undefined;
    }
    if (ms % 1000 !== 0) {
      problems.push(
        `${name} must be a whole second (the service takes no milliseconds), got ${value.toISOString()}`,
      );
      return undefined;
    }
    const year = value.getUTCFullYear();
    if (year < 1000 || year > 9999) {
      problems.push(`${name} must be between years 1000 and 9999, got ${value.toISOString()}`);
      return undefined;
    }
    return value;
  }
  if (typeof value === 'string') {
    const parsed = parseServiceDateTime(value);
    if (parsed !== undefined) return parsed;
  }
  problems.push(
    `${name} must be a Date or a UTC date-time 'YYYY-MM-DD hh:mm:ss', got ${describe(value)}`,
  );
  return undefined;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  return `a ${Array.isArray(value) ? 'array' : typeof value}`;
}

function invalidQuery(endpoint: Endpoint, problems: readonly string[]): ServiceError {
  return new ServiceError(
    'INVALID_QUERY',
    `invalid query for ${endpoint.path}: ${problems.join('; ')}. Nothing was sent; fix the query.`,
    { endpoint: endpoint.path, retryable: false, details: { problems } },
  );
}
