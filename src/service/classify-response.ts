import type { ServiceErrorCode } from '../errors/error-code.js';
import { excerpt } from './parse-envelope.js';
import { readRetryAfter } from './parse-retry-after.js';
import { isJsonObject } from './record-fields.js';

/** What the client received: status, headers and the body read as text. */
export interface UpstreamResponse {
  /** The endpoint path, for messages. */
  readonly endpoint: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body: string;
  /**
   * The body already parsed with `JSON.parse`, when the caller has done it (the hot path parses
   * once). `undefined`: parse here if needed.
   */
  readonly json?: unknown;
}

/** A response that is not a usable answer: everything a `ServiceError` needs but the payload. */
export interface ResponseFailure {
  readonly code: ServiceErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  readonly endpoint: string;
  readonly httpStatus: number;
  readonly retryAfterMs: number | undefined;
  /**
   * The `Retry-After` sent when it asked for more than a day: not believed (`retryAfterMs` is
   * then `undefined`), for the client to say so once.
   */
  readonly retryAfterImplausible?: string;
  readonly details: {
    /** The service's own words (`message` of a JSON body, or the plain-text body). */
    readonly upstreamMessage: string | undefined;
    readonly body: string;
  };
}

const SUCCESS = /^success$/i;
const NO_DATA = /data not available/i;
/** A 429 whose message says the quota (not the rate) is spent: "quota exceeded". */
const QUOTA_SPENT = /\bquota\b/i;
const RANGE_TOO_LONG =
  /only past \d+ days?|(range|period|window|interval)\b.*\btoo (long|large|wide|big)|too (long|large|wide|big)\b.*\b(range|period|window|interval)|max(imum)?\s+(date\s+|time\s+)?(range|period|window|interval)|exceeds?\b.*\b(range|period|window|limit)/i;

/**
 * The one boundary where the service's status codes and message texts are read: maps a response
 * to a stable code (upstream spec, status table), or `undefined` when it is a usable answer for
 * the parsers. Everything past this function branches on `code` only.
 *
 * | status | code | retryable |
 * |---|---|---|
 * | 200 + `success` | — (parse) | |
 * | 200 + `Data not available!` | `NO_DATA` | no |
 * | 200 + any other message | `MALFORMED_RESPONSE` | yes |
 * | 206 | `PARTIAL` (history methods return the trimmed payload instead, `complete: false`) | yes |
 * | 400 saying the range is too long / `Only past 2 days data available!` | `RANGE_TOO_LONG` | no |
 * | 400, other 4xx | `BAD_REQUEST` | no |
 * | 401 | `UNAUTHORIZED` | no |
 * | 403 | `FORBIDDEN` | no |
 * | 404 | `NOT_COVERED` | no |
 * | 408 | `TIMEOUT` | yes |
 * | 422 | `QUOTA_EXCEEDED` | yes |
 * | 429 | `RATE_LIMITED`, with `retryAfterMs` from `Retry-After` | yes |
 * | 429 "quota exceeded" | `QUOTA_EXCEEDED` (with `retryAfterMs` when sent) | yes |
 * | 5xx | `SERVER_ERROR` | yes |
 * | 1xx, 3xx | `BAD_REQUEST` (wrong base address) | no |
 */
export function classifyResponse(
  response: UpstreamResponse,
  nowMs: number = Date.now(),
): ResponseFailure | undefined {
  const { status, endpoint } = response;
  const { upstream, isJson } = readUpstreamMessage(response);
  const said = upstream === undefined ? '' : `: "${upstream}"`;
  const retryAfter = readRetryAfter(response.headers['retry-after'], nowMs);

  const fail = (code: ServiceErrorCode, retryable: boolean, message: string): ResponseFailure => ({
    code,
    message,
    retryable,
    endpoint,
    httpStatus: status,
    retryAfterMs: retryAfter.ms,
    ...(retryAfter.implausible !== undefined && {
      retryAfterImplausible: retryAfter.implausible,
    }),
    details: { upstreamMessage: upstream, body: excerpt(response.body) },
  });

  if (status >= 200 && status < 300 && status !== 206) {
    // Not JSON, or no message: the parser reports the precise envelope problem.
    if (!isJson || upstream === undefined || SUCCESS.test(upstream)) return undefined;
    if (NO_DATA.test(upstream)) {
      return fail(
        'NO_DATA',
        false,
        `the service has no data for this location and period at ${endpoint}${said}. ` +
          'The chunk is done with zero rows; do not retry it.',
      );
    }
    if (RANGE_TOO_LONG.test(upstream)) return rangeTooLong();
    return fail(
      'MALFORMED_RESPONSE',
      true,
      `the service answered ${endpoint} with ${status} but not "success"${said}. ` +
        'The body is in details.body; if this repeats, compare it with the upstream spec.',
    );
  }

  switch (status) {
    case 206:
      return fail(
        'PARTIAL',
        true,
        `the service trimmed its answer to ${endpoint} (206: the quota ran out mid-response): ` +
          'retry the call later.',
      );
    case 400:
      if (upstream !== undefined && RANGE_TOO_LONG.test(upstream)) return rangeTooLong();
      return fail(
        'BAD_REQUEST',
        false,
        `the service refused the parameters sent to ${endpoint} (400)${said}. ` +
          'Retrying the same request cannot succeed; check the query.',
      );
    case 401:
      return fail(
        'UNAUTHORIZED',
        false,
        `the service rejected the API key (401) at ${endpoint}${said}: check ENVDATA_API_KEY ` +
          '(no retry can fix a refused key)',
      );
    case 403:
      return fail(
        'FORBIDDEN',
        false,
        `the API key is not allowed to use ${endpoint} (403)${said}: enable this product on ` +
          'your plan, or stop ingesting this dataset.',
      );
    case 404:
      return fail(
        'NOT_COVERED',
        false,
        `the service does not cover this location at ${endpoint} (404)${said}. ` +
          'The chunk is done, marked "no coverage".',
      );
    case 408:
      return fail(
        'TIMEOUT',
        true,
        `the service timed out the request to ${endpoint} (408): retry with backoff.`,
      );
    case 422:
      return fail(
        'QUOTA_EXCEEDED',
        true,
        `the API quota is exhausted (422) at ${endpoint}${said}: pause all work until the ` +
          'quota window resets, or raise the plan.',
      );
    case 429:
      // The daily or monthly quota, said with a 429: a rate limit's pause would only probe again.
      if (upstream !== undefined && QUOTA_SPENT.test(upstream)) {
        return fail(
          'QUOTA_EXCEEDED',
          true,
          `the API quota is exhausted (429) at ${endpoint}${said}: pause all work until the ` +
            'quota window resets (ENVDATA_QUOTA), or raise the plan.',
        );
      }
      return fail(
        'RATE_LIMITED',
        true,
        `the service is rate limiting (429) at ${endpoint}${said}: pause every worker ` +
          `(${retryAfterText()}), and lower ENVDATA_RATE_LIMIT if this repeats.`,
      );
    default:
      break;
  }
  if (status >= 500 && status < 600) {
    return fail(
      'SERVER_ERROR',
      true,
      `the service failed at ${endpoint} (${status})${said}: a transient fault, retry with backoff.`,
    );
  }
  if (status >= 400 && status < 500) {
    return fail(
      'BAD_REQUEST',
      false,
      `the service refused the request to ${endpoint} (${status})${said}. ` +
        'Retrying the same request cannot succeed.',
    );
  }
  return fail(
    'BAD_REQUEST',
    false,
    `the service answered ${endpoint} with an unexpected status ${status}: check ENVDATA_BASE_URL ` +
      '(a redirect usually means the wrong scheme or host).',
  );

  function rangeTooLong(): ResponseFailure {
    return fail(
      'RANGE_TOO_LONG',
      false,
      `the service refused the period as too long or too old for this API plan at ${endpoint} ` +
        `(${status})${said}. Shrink the request window (ENVDATA_HISTORY_WINDOW) or use a plan with ` +
        'deeper history.',
    );
  }

  function retryAfterText(): string {
    const { ms, implausible } = retryAfter;
    if (implausible !== undefined) {
      return `Retry-After "${implausible}" asks for more than a day: not believed, use the shared backoff`;
    }
    return ms === undefined
      ? 'no Retry-After: use the shared backoff'
      : `Retry-After asks for ${Math.ceil(ms / 1000)} s`;
  }
}

/**
 * The service's own words: `message` (or `error`, `status`, `detail`) of a JSON body, else the
 * plain-text body, trimmed and clipped. Error bodies come both ways: read text, then try JSON.
 */
function readUpstreamMessage(response: UpstreamResponse): {
  upstream: string | undefined;
  isJson: boolean;
} {
  let json = response.json;
  if (json === undefined) {
    try {
      json = JSON.parse(response.body);
    } catch {
      const text = response.body.trim().replace(/\s+/g, ' ');
      return { upstream: text === '' ? undefined : clip(text), isJson: false };
    }
  }
  if (isJsonObject(json)) {
    for (const key of ['message', 'error', 'status', 'detail'] as const) {
      const value = json[key];
      if (typeof value === 'string' && value.trim() !== '') {
        return { upstream: clip(value.trim()), isJson: true };
      }
    }
  }
  return { upstream: undefined, isJson: true };
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
