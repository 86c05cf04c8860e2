import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient, type ServiceClient } from '../../src/service/service-client.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/service/service-client-options.js';
import { isServiceError, type ServiceError } from '../../src/service/service-error.js';
import { startHugeBodyServer, type HugeBodyServer } from '../harness/huge-body-server.js';
import { rssGrowth } from '../harness/rss-growth.js';

const MB = 1024 * 1024;
const query = {
  lat: 52.52,
  lng: 13.405,
  from: new Date('2024-06-02T00:00:00Z'),
  to: new Date('2024-06-04T00:00:00Z'),
};
let server: HugeBodyServer | undefined;
let client: ServiceClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

function clientOf(url: string, extra: { maxBodyBytes?: number; signal?: AbortSignal } = {}) {
  client = createServiceClient({
    baseUrl: url,
    apiKey: 'test-key',
    connections: 2,
    connectTimeoutMs: 5_000,
    requestTimeoutMs: 60_000,
    ...extra,
  });
  return client;
}

async function failureOf(call: Promise<unknown>): Promise<ServiceError> {
  const error: unknown = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isServiceError(error)) throw new Error(`expected a ServiceError, got ${String(error)}`);
  return error;
}

describe('the service client reads at most ENVDATA_HTTP_MAX_BODY_BYTES of an answer', () => {
  it('gives up on a 300 MB chunked body as soon as it passes the limit, in bounded memory', async () => {
    server = await startHugeBodyServer();
    const c = clientOf(server.url);
    const { result: error, growth } = await rssGrowth(() => failureOf(c.weatherHistory(query)));
    expect(error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', retryable: false });
    expect(error.details).toMatchObject({ limitBytes: DEFAULT_MAX_BODY_BYTES });
    expect(error.details['receivedBytes']).toBeGreaterThan(DEFAULT_MAX_BODY_BYTES);
    expect(error.message).toMatch(/ENVDATA_HTTP_MAX_BODY_BYTES=1048576/);
    expect(growth).toBeLessThan(100 * MB);
    // The download was abandoned: the server got to write little beyond the limit (socket
    // buffers), nowhere near its 300 MB.
    expect(server.bytesWritten()).toBeLessThan(32 * MB);
  });

  it('refuses an answer whose Content-Length is over the limit without reading it', async () => {
    server = await startHugeBodyServer({ declareLength: true });
    const c = clientOf(server.url, { maxBodyBytes: 64 * 1024 });
    const error = await failureOf(c.pollenHistoryByLatLng(query));
    expect(error.code).toBe('RESPONSE_TOO_LARGE');
    expect(error.details).toEqual({
      limitBytes: 64 * 1024,
      receivedBytes: 0,
      contentLength: 300 * MB,
    });
    expect(server.bytesWritten()).toBeLessThan(32 * MB);
  });

  it('reads an answer within the limit as before', async () => {
    server = await startHugeBodyServer({ bodyBytes: 10_000 });
    const c = clientOf(server.url, { maxBodyBytes: 10_100 });
    // The body is cut off JSON, so the answer is malformed: but it was read whole.
    const error = await failureOf(c.weatherHistory(query));
    expect(error.code).toBe('MALFORMED_RESPONSE');
  });
});

describe('the service client with a signal', () => {
  it('abandons a call in flight when the signal aborts: ABORTED, retryable', async () => {
    server = await startHugeBodyServer({ bodyBytes: 200 * MB });
    const controller = new AbortController();
    const c = clientOf(server.url, { maxBodyBytes: 500 * MB, signal: controller.signal });
    const call = failureOf(c.weatherHistory(query));
    controller.abort();
    expect(await call).toMatchObject({ code: 'ABORTED', retryable: true });
    // And refuses new calls once aborted.
    expect(await failureOf(c.weatherLatest({ lat: 1, lng: 1 }))).toMatchObject({
      code: 'ABORTED',
    });
  });
});
