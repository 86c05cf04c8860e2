import { describe, expect, it } from 'vitest';
import { retryBackoffMs } from '../../src/ingest/retry-backoff.js';
import { ServiceError } from '../../src/service/service-error.js';

const MAX_PAUSE = 900_000;
const half = () => 0.5;

function serverError(retryAfterMs?: number): ServiceError {
  return new ServiceError('SERVER_ERROR', 'the service failed (503)', {
    endpoint: '/history/weather',
    httpStatus: 503,
    retryable: true,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
  });
}

describe('retryBackoffMs', () => {
  it('doubles from the base with each attempt made, as before', () => {
    const waits = [1, 2, 3, 4].map((n) => retryBackoffMs(2_000, n, serverError(), MAX_PAUSE, half));
    expect(waits).toEqual([2_000, 4_000, 8_000, 16_000]);
  });

  it('waits what a 5xx Retry-After asked when longer than the backoff', () => {
    expect(retryBackoffMs(2_000, 1, serverError(30_000), MAX_PAUSE, half)).toBe(30_000);
    expect(retryBackoffMs(2_000, 4, serverError(3_000), MAX_PAUSE, half)).toBe(16_000);
  });

  it('never beyond ENVDATA_MAX_PAUSE, whatever was asked or the attempts made', () => {
    expect(retryBackoffMs(2_000, 1, serverError(86_400_000), MAX_PAUSE, half)).toBe(MAX_PAUSE);
    expect(retryBackoffMs(2_000, 25, serverError(), MAX_PAUSE, () => 0.99)).toBe(MAX_PAUSE);
  });

  it('reads no wait from an error that is not the service’s', () => {
    expect(retryBackoffMs(2_000, 1, new Error('a bug'), MAX_PAUSE, half)).toBe(2_000);
  });
});
