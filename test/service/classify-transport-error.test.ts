import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  RequestDeadlineExceeded,
  classifyTransportError,
} from '../../src/service/classify-transport-error.js';

const CONTEXT = {
  endpoint: '/weather/history/by-lat-lng',
  baseUrl: 'http://127.0.0.1:8787',
  connectTimeoutMs: 5_000,
  requestTimeoutMs: 30_000,
};

function systemError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:8787`), { code });
}

describe('classifyTransportError', () => {
  it.each([
    [
      'the client deadline',
      new RequestDeadlineExceeded('deadline'),
      /ENVDATA_HTTP_TIMEOUT_MS=30000/,
    ],
    ['a headers timeout', new errors.HeadersTimeoutError(), /ENVDATA_HTTP_TIMEOUT_MS=30000/],
    ['a body timeout', new errors.BodyTimeoutError(), /ENVDATA_HTTP_TIMEOUT_MS/],
    ['a connect timeout', new errors.ConnectTimeoutError(), /ENVDATA_HTTP_CONNECT_TIMEOUT_MS=5000/],
    ['ETIMEDOUT', systemError('ETIMEDOUT'), /within/],
  ])('maps %s to TIMEOUT, retryable', (_, thrown, hint) => {
    const error = classifyTransportError(thrown, CONTEXT);
    expect(error.code).toBe('TIMEOUT');
    expect(error.retryable).toBe(true);
    expect(error.endpoint).toBe(CONTEXT.endpoint);
    expect(error.message).toMatch(hint);
    expect(error.cause).toBe(thrown);
  });

  it.each([
    ['a socket error', new errors.SocketError('other side closed')],
    ['ECONNRESET', systemError('ECONNRESET')],
    ['ECONNREFUSED', systemError('ECONNREFUSED')],
    ['ENOTFOUND', systemError('ENOTFOUND')],
    ['ECONNREFUSED inside an AggregateError', new AggregateError([systemError('ECONNREFUSED')])],
    ['an error without a code', new Error('boom')],
    ['a thrown string', 'boom'],
  ])('maps %s to NETWORK, retryable', (_, thrown) => {
    const error = classifyTransportError(thrown, CONTEXT);
    expect(error.code).toBe('NETWORK');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/check ENVDATA_BASE_URL/);
  });

  it('maps a request on a destroyed pool to NETWORK, not retryable', () => {
    const error = classifyTransportError(new errors.ClientDestroyedError(), CONTEXT);
    expect(error).toMatchObject({ code: 'NETWORK', retryable: false });
  });
});
