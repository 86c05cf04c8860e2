import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { EnvdataError } from '../../src/errors/envdata-error.js';
import { SERVICE_ERROR_CODES } from '../../src/errors/error-code.js';
import {
  OUTCOME_POLICY,
  outcomeOf,
  type Outcome,
  type OutcomeKind,
} from '../../src/ingest/outcome-policy.js';
import { classifyResponse } from '../../src/service/classify-response.js';
import {
  CallAborted,
  RequestDeadlineExceeded,
  classifyTransportError,
} from '../../src/service/classify-transport-error.js';
import { ServiceError } from '../../src/service/service-error.js';

const ENDPOINT = '/history/pollen/by-lat-lng';
const TRANSPORT = {
  endpoint: ENDPOINT,
  baseUrl: 'http://127.0.0.1:8787',
  connectTimeoutMs: 5_000,
  requestTimeoutMs: 30_000,
};

/** What the service client throws for an HTTP answer, or `undefined` when it lets it through. */
function answer(status: number, body: string): ServiceError | undefined {
  const failure = classifyResponse({ endpoint: ENDPOINT, status, headers: {}, body });
  return (
    failure &&
    new ServiceError(failure.code, failure.message, {
      endpoint: failure.endpoint,
      httpStatus: failure.httpStatus,
      retryable: failure.retryable,
      retryAfterMs: failure.retryAfterMs,
    })
  );
}

/** Outcomes under which the same work is done again later. */
const AGAIN: ReadonlySet<OutcomeKind> = new Set(['retry', 'pause-all', 'release']);

describe('OUTCOME_POLICY', () => {
  it('has exactly one entry per code the service client can raise, and INTERNAL', () => {
    expect(Object.keys(OUTCOME_POLICY).sort()).toEqual([...SERVICE_ERROR_CODES, 'INTERNAL'].sort());
  });

  it('agrees with the client on every HTTP answer it refuses: work is done again only when a retry can help', () => {
    const bodies = [
      '{"message": "something went wrong"}',
      'plain text',
      '{"message": "Only past 2 days data available!"}',
      '{"message": "Data not available!", "data": []}',
      '',
    ];
    let refused = 0;
    for (let status = 100; status < 600; status += 1) {
      for (const body of bodies) {
        const error = answer(status, body);
        if (!error) continue;
        refused += 1;
        const { code, outcome } = outcomeOf(error);
        expect(code, `${status} ${body}`).toBe(error.code);
        expect(AGAIN.has(outcome.kind), `${status} ${body}: ${code} → ${outcome.kind}`).toBe(
          error.retryable,
        );
      }
    }
    expect(refused).toBeGreaterThan(400 * 4);
  });

  it('agrees with the client on every failure of the request itself', () => {
    const thrown = [
      new RequestDeadlineExceeded('deadline'),
      new errors.ConnectTimeoutError(),
      new errors.SocketError('other side closed'),
      new errors.ClientDestroyedError(),
      new CallAborted('shutdown deadline'),
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ];
    const seen = new Set<string>();
    for (const t of thrown) {
      const error = classifyTransportError(t, TRANSPORT);
      seen.add(error.code);
      expect(AGAIN.has(outcomeOf(error).outcome.kind), error.code).toBe(error.retryable);
    }
    expect([...seen].sort()).toEqual(['ABORTED', 'NETWORK', 'TIMEOUT']);
  });

  it.each<[string, number, string, Partial<Outcome>]>([
    ['"no data"', 200, '{"message": "Data not available!", "data": []}', { kind: 'land-empty' }],
    [
      "a body that is not the service's",
      200,
      '{"message": "hello"}',
      { kind: 'retry', wrongAddressSign: true },
    ],
    ['400', 400, '{"message": "bad lat"}', { kind: 'fail' }],
    [
      '400 "only past 2 days"',
      400,
      '{"message": "Only past 2 days data available!"}',
      { kind: 'split' },
    ],
    ['401', 401, '{"message": "Unauthorized"}', { kind: 'stop-run' }],
    ['403', 403, '{"message": "Forbidden"}', { kind: 'block-dataset' }],
    ['404', 404, 'Not Found', { kind: 'land-empty', wrongAddressSign: true }],
    ['422', 422, '{"message": "quota"}', { kind: 'pause-all', baseMs: 60_000, capMs: 3_600_000 }],
    ['429', 429, 'Too Many Requests', { kind: 'pause-all', baseMs: 1_000, capMs: 60_000 }],
    ['500', 500, 'oops', { kind: 'retry' }],
    ['503', 503, 'down', { kind: 'retry' }],
  ])('follows the upstream status table: %s', (_, status, body, expected) => {
    const error = answer(status, body);
    expect(error).toBeDefined();
    expect(outcomeOf(error).outcome).toEqual(expected);
  });

  it('retries a trimmed (206) answer as an attempt, and splits a window whose answer is too large', () => {
    expect(OUTCOME_POLICY.PARTIAL).toEqual({ kind: 'retry' });
    const tooLarge = new ServiceError('RESPONSE_TOO_LARGE', 'too large', {
      endpoint: ENDPOINT,
      retryable: false,
    });
    expect(outcomeOf(tooLarge)).toMatchObject({
      code: 'RESPONSE_TOO_LARGE',
      outcome: { kind: 'split' },
    });
  });
});

describe('outcomeOf', () => {
  it('retries whatever the service client did not raise, as INTERNAL', () => {
    expect(outcomeOf(new Error('null value in column'))).toEqual({
      code: 'INTERNAL',
      outcome: { kind: 'retry' },
      retryAfterMs: undefined,
    });
    expect(outcomeOf(new EnvdataError('DATABASE_UNAVAILABLE', 'down')).code).toBe('INTERNAL');
    expect(outcomeOf('a thrown string').outcome.kind).toBe('retry');
  });

  it('fails at once an error that says no retry can help, keeping its wrong-address sign', () => {
    const closed = new ServiceError('NETWORK', 'client closed', {
      endpoint: ENDPOINT,
      retryable: false,
    });
    expect(outcomeOf(closed).outcome).toEqual({ kind: 'fail' });
    const strange = new ServiceError('MALFORMED_RESPONSE', 'not ours', {
      endpoint: ENDPOINT,
      retryable: false,
    });
    expect(outcomeOf(strange).outcome).toEqual({ kind: 'fail', wrongAddressSign: true });
  });

  it('passes on the wait Retry-After asked for', () => {
    const limited = new ServiceError('RATE_LIMITED', 'slow down', {
      endpoint: ENDPOINT,
      retryable: true,
      retryAfterMs: 3_000,
    });
    expect(outcomeOf(limited)).toEqual({
      code: 'RATE_LIMITED',
      outcome: OUTCOME_POLICY.RATE_LIMITED,
      retryAfterMs: 3_000,
    });
  });
});
