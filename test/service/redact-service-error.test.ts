import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { classifyResponse } from '../../src/service/classify-response.js';
import { redactServiceError } from '../../src/service/redact-service-error.js';
import { ServiceError } from '../../src/service/service-error.js';

const KEY = 'sk-live-0123456789abcdef';

describe('redactServiceError', () => {
  it('removes a key echoed by the service from message, details and cause', () => {
    const verdict = classifyResponse({
      endpoint: '/latest/pollen/by-place',
      status: 401,
      headers: {},
      body: JSON.stringify({ message: `Invalid API key ${KEY}` }),
    });
    if (verdict === undefined) throw new Error('expected a failure');
    const error = new ServiceError(verdict.code, verdict.message, {
      ...verdict,
      cause: new Error(`upstream said ${KEY}`),
    });
    expect(inspect(error, { depth: Infinity })).toContain(KEY);

    const redacted = redactServiceError(error, KEY);
    expect(redacted).toBeInstanceOf(ServiceError);
    expect(inspect(redacted, { depth: Infinity })).not.toContain(KEY);
    expect(JSON.stringify(redacted)).not.toContain(KEY);
    expect(redacted).toMatchObject({
      code: 'UNAUTHORIZED',
      httpStatus: 401,
      endpoint: '/latest/pollen/by-place',
      details: { upstreamMessage: 'Invalid API key [redacted]' },
    });
  });

  it('returns a clean error unchanged', () => {
    const error = new ServiceError('SERVER_ERROR', 'boom', { endpoint: '/x', retryable: true });
    expect(redactServiceError(error, KEY)).toBe(error);
  });
});
