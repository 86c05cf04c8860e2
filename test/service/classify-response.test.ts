import { describe, expect, it } from 'vitest';
import { classifyResponse, type UpstreamResponse } from '../../src/service/classify-response.js';
import { readFixture } from './read-fixture.js';

const ENDPOINT = '/history/pollen/by-lat-lng';
const NOW = Date.parse('2026-01-01T00:00:00Z');

function classify(
  status: number,
  body: string,
  headers: UpstreamResponse['headers'] = {},
): ReturnType<typeof classifyResponse> {
  return classifyResponse({ endpoint: ENDPOINT, status, headers, body }, NOW);
}

describe('classifyResponse', () => {
  it.each([
    ['success', readFixture('pollen-latest.json')],
    ['Success', readFixture('pollen-latest-legacy.json')],
    ['status: success', readFixture('weather-history.json')],
  ])('lets a 200 with "%s" through to the parser', (_, body) => {
    expect(classify(200, body)).toBeUndefined();
  });

  it('lets a 200 that is not JSON through, so the parser reports it as MALFORMED_RESPONSE', () => {
    expect(classify(200, readFixture('not-json.txt'))).toBeUndefined();
  });

  it('uses the already-parsed body when given one', () => {
    const verdict = classifyResponse(
      {
        endpoint: ENDPOINT,
        status: 200,
        headers: {},
        body: 'ignored',
        json: { message: 'success' },
      },
      NOW,
    );
    expect(verdict).toBeUndefined();
  });

  it('maps 200 + "Data not available!" to NO_DATA, not retryable', () => {
    const verdict = classify(200, readFixture('no-data.json'));
    expect(verdict).toMatchObject({
      code: 'NO_DATA',
      retryable: false,
      httpStatus: 200,
      endpoint: ENDPOINT,
      details: { upstreamMessage: 'Data not available!' },
    });
    expect(verdict?.message).toMatch(/zero rows; do not retry/);
  });

  it('maps 200 with an unknown message to MALFORMED_RESPONSE', () => {
    expect(classify(200, '{"message":"maintenance","data":[]}')?.code).toBe('MALFORMED_RESPONSE');
  });

  it('maps 206 to PARTIAL, retryable, even when the body is cut off', () => {
    const verdict = classify(206, readFixture('pollen-history-truncated.txt'));
    expect(verdict).toMatchObject({ code: 'PARTIAL', retryable: true, httpStatus: 206 });
    expect(verdict?.message).toMatch(/trimmed its answer .*retry the call later/);
  });

  it.each([
    ['{"message":"Only past 2 days data available!"}'],
    ['Only past 2 days data available!'],
    ['{"message":"Date range too long: maximum 48 hours per request"}'],
    ['{"message":"The requested period is too long"}'],
    ['{"error":"maximum range is 48 hours"}'],
  ])('maps 400 saying the range is too long (%s) to RANGE_TOO_LONG', (body) => {
    const verdict = classify(400, body);
    expect(verdict).toMatchObject({ code: 'RANGE_TOO_LONG', retryable: false, httpStatus: 400 });
    expect(verdict?.message).toMatch(/ENVDATA_HISTORY_WINDOW/);
  });

  it.each([
    ['{"message":"Invalid lat"}', 'Invalid lat'],
    ['lat must be a number', 'lat must be a number'],
    ['', undefined],
  ])('maps any other 400 (%s) to BAD_REQUEST with the upstream words', (body, upstream) => {
    const verdict = classify(400, body);
    expect(verdict).toMatchObject({ code: 'BAD_REQUEST', retryable: false });
    expect(verdict?.details.upstreamMessage).toBe(upstream);
  });

  it('maps 401 to UNAUTHORIZED and tells the operator to check ENVDATA_API_KEY', () => {
    const verdict = classify(401, '{"message":"Unauthorized"}');
    expect(verdict).toMatchObject({ code: 'UNAUTHORIZED', retryable: false, httpStatus: 401 });
    expect(verdict?.message).toMatch(
      /the service rejected the API key \(401\).*check ENVDATA_API_KEY \(no retry can fix a refused key\)$/,
    );
    // The client does not know what it was called for: adding a location is no run to stop.
    expect(verdict?.message).not.toMatch(/\brun\b/);
  });

  it('maps 403 to FORBIDDEN, naming the endpoint that refused', () => {
    const verdict = classify(403, 'Forbidden');
    expect(verdict).toMatchObject({ code: 'FORBIDDEN', retryable: false });
    expect(verdict?.message).toContain(ENDPOINT);
  });

  it('maps 404 to NOT_COVERED, not retryable', () => {
    expect(classify(404, '{"message":"Not found"}')).toMatchObject({
      code: 'NOT_COVERED',
      retryable: false,
    });
  });

  it('maps 422 to QUOTA_EXCEEDED, retryable', () => {
    expect(classify(422, '{"message":"Quota exceeded"}')).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      retryable: true,
    });
  });

  it('maps 429 with Retry-After seconds to RATE_LIMITED with the wait', () => {
    const verdict = classify(429, '{"message":"Too Many Requests"}', { 'retry-after': '30' });
    expect(verdict).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retryAfterMs: 30_000 });
    expect(verdict?.message).toMatch(/Retry-After asks for 30 s/);
  });

  it('maps 429 with an HTTP-date Retry-After to the time left until then', () => {
    const verdict = classify(429, 'slow down', { 'retry-after': 'Thu, 01 Jan 2026 00:01:30 GMT' });
    expect(verdict?.retryAfterMs).toBe(90_000);
  });

  it('maps 429 "quota exceeded" to QUOTA_EXCEEDED, not a rate limit to probe again', () => {
    const verdict = classify(429, '{"message":"quota exceeded"}');
    expect(verdict).toMatchObject({ code: 'QUOTA_EXCEEDED', retryable: true, httpStatus: 429 });
    expect(verdict?.retryAfterMs).toBeUndefined();
    expect(verdict?.message).toMatch(/quota is exhausted \(429\).*until the quota window resets/);
  });

  it('maps 429 without Retry-After to RATE_LIMITED with no wait', () => {
    const verdict = classify(429, '{"message":"Limit Exceeded"}');
    expect(verdict).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    expect(verdict?.retryAfterMs).toBeUndefined();
    expect(verdict?.message).toMatch(/no Retry-After/);
  });

  it.each([500, 502, 503, 504])('maps %i to SERVER_ERROR, retryable', (status) => {
    const verdict = classify(status, '<html>Bad Gateway</html>');
    expect(verdict).toMatchObject({ code: 'SERVER_ERROR', retryable: true, httpStatus: status });
  });

  it('maps 408 to TIMEOUT, retryable', () => {
    expect(classify(408, '')).toMatchObject({ code: 'TIMEOUT', retryable: true });
  });

  it.each([405, 410, 413])('maps other 4xx (%i) to BAD_REQUEST, not retryable', (status) => {
    expect(classify(status, '')).toMatchObject({ code: 'BAD_REQUEST', retryable: false });
  });

  it('maps a redirect to BAD_REQUEST pointing at ENVDATA_BASE_URL', () => {
    const verdict = classify(301, '');
    expect(verdict).toMatchObject({ code: 'BAD_REQUEST', retryable: false });
    expect(verdict?.message).toMatch(/ENVDATA_BASE_URL/);
  });

  it('keeps a clipped excerpt of a long error body', () => {
    const verdict = classify(500, 'x'.repeat(50_000));
    expect(verdict?.details.body.length).toBeLessThan(2_100);
    expect(verdict?.details.upstreamMessage?.length).toBeLessThanOrEqual(201);
  });
});
