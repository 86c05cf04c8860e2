import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a stub received. */
export interface StubRequest {
  readonly method: string;
  /** Path without the query: `/geocode/reverse/by-lat-lng`. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
}

/** What a stub answers; `contentType` defaults to JSON. */
export interface StubAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType?: string;
}

export interface StubService {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly requests: readonly StubRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback (a free port) that answers every request with `answer`, for
 * tests that need the service to say something the simulator never says. Close it in `afterAll`.
 */
export async function startStubService(
  answer: (request: StubRequest) => StubAnswer | Promise<StubAnswer>,
): Promise<StubService> {
  const requests: StubRequest[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    const request: StubRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
    };
    requests.push(request);
    req.resume();
    Promise.resolve()
      .then(() => answer(request))
      .then(
        (a) => {
          res.writeHead(a.status, { 'content-type': a.contentType ?? 'application/json' });
          res.end(a.body);
        },
        (error: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`stub failed: ${String(error)}`);
        },
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
