import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { coerceError } from '../errors/coerce-error.js';
import { trackResource } from '../lifecycle/open-resources.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import type { Logger } from '../logging/create-logger.js';
import type { AppComponent } from './app-component.js';

/**
 * The values a route's pattern took from the path: `{ id: '12' }` for `/api/runs/:id` at
 * `/api/runs/12`; under a mount (`/queues/*`), `'*'` is the rest of the path (`/api/queues`).
 */
export type RouteParams = Readonly<Record<string, string>>;

/** Answers one request; a rejection is logged and answered 500. */
export type HttpHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  params: RouteParams,
) => unknown;

/**
 * A handler for one method and path (the path without its query string). A path is exact
 * (`/healthz`), has parameters (`/api/runs/:id`: one segment each, decoded), or mounts a
 * sub-application under a prefix (`/queues/*`: the prefix itself and everything below it).
 */
export interface HttpRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly handler: HttpHandler;
}

/** A route path split for matching: its segments, and whether it ends with `/*`. */
interface PathPattern {
  readonly path: string;
  readonly segments: readonly string[];
  readonly mount: boolean;
  readonly methods: Map<string, HttpHandler>;
}

export interface HttpServerOptions {
  /** Interface to listen on, e.g. `127.0.0.1` (loopback only) or `0.0.0.0`. */
  readonly host: string;
  /** TCP port; 0 takes a free one (see `url`). */
  readonly port: number;
  readonly logger: Logger;
  readonly routes?: readonly HttpRoute[];
}

/**
 * `GET /healthz`: the process is alive and its event loop answers (liveness). It checks no
 * dependency: an outage of Postgres or Redis is ridden out, not a reason to restart.
 */
export const HEALTHZ_ROUTE: HttpRoute = {
  method: 'GET',
  path: '/healthz',
  handler: (_request, response) => sendText(response, 200, 'ok\n'),
};

/**
 * The process's own HTTP server (a `node:http` server), for operators and their tools: health,
 * readiness, the operations console, metrics. Routes are matched on method and path — an exact
 * path first, then paths with parameters and mounts in the order added — and may be added before
 * or after it starts; an unknown path answers 404, a known path with another method 405. `HEAD`
 * is answered by the `GET` handler, without the body.
 */
export class HttpServer implements AppComponent {
  readonly name = 'http';
  /** Exact path → method → handler. */
  private readonly routes = new Map<string, Map<string, HttpHandler>>();
  /** Paths with parameters and mounts, in the order added. */
  private readonly patterns: PathPattern[] = [];
  private readonly server: Server;
  private readonly log: Logger;
  private untrack: (() => void) | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: HttpServerOptions) {
    this.log = options.logger.child({ component: 'http' });
    for (const r of options.routes ?? []) this.route(r.method, r.path, r.handler);
    this.server = createServer((request, response) => void this.answer(request, response));
  }

  /** Adds (or replaces) the handler of `method` `path`. */
  route(method: HttpRoute['method'], path: string, handler: HttpHandler): this {
    const mount = path.endsWith('/*');
    if (!mount && !path.includes('/:')) {
      let methods = this.routes.get(path);
      if (!methods) this.routes.set(path, (methods = new Map()));
      methods.set(method, handler);
      return this;
    }
    let pattern = this.patterns.find((p) => p.path === path);
    if (!pattern) {
      const segments = (mount ? path.slice(0, -2) : path).split('/').filter(Boolean);
      pattern = { path, segments, mount, methods: new Map() };
      this.patterns.push(pattern);
    }
    pattern.methods.set(method, handler);
    return this;
  }

  /** `http://host:port` once started (the port chosen when `port` was 0). */
  get url(): string {
    const address = this.server.address() as AddressInfo | null;
    if (!address) throw new Error('the HTTP server is not listening: start() it first');
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  /** Listens; rejects when it cannot (the port is taken, say). */
  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.server.on('error', (error) => this.log.warn({ err: error }, 'HTTP server error'));
    this.untrack = trackResource('http server', this.url, () => this.stop(0));
    this.log.info({ url: this.url }, 'HTTP server listening');
  }

  /**
   * Stops accepting connections and lets requests in progress finish for up to `timeoutMs`;
   * then every connection is cut. Idempotent.
   */
  stop(timeoutMs: number): Promise<void> {
    if (!this.untrack) return Promise.resolve();
    this.stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.server.closeIdleConnections();
      if (!(await settlesWithin(closed, timeoutMs))) this.server.closeAllConnections();
      await closed;
      this.untrack?.();
    })();
    return this.stopping;
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?', 1)[0]!;
    const found = this.match(path);
    if (!found) return sendText(response, 404, 'not found\n');
    const { methods, params } = found;
    const method = request.method === 'HEAD' ? 'GET' : (request.method ?? 'GET');
    const handler = methods.get(method);
    if (!handler) {
      response.setHeader('allow', [...methods.keys()].join(', '));
      return sendText(response, 405, 'method not allowed\n');
    }
    try {
      await handler(request, response, params);
    } catch (thrown) {
      this.log.warn({ err: coerceError(thrown), path }, 'HTTP handler failed');
      if (!response.headersSent) sendText(response, 500, 'internal error\n');
      else response.destroy();
    }
  }

  /** The handlers of `path` and the parameters it gives them; `undefined`: no route. */
  private match(
    path: string,
  ): { methods: Map<string, HttpHandler>; params: RouteParams } | undefined {
    const exact = this.routes.get(path);
    if (exact) return { methods: exact, params: {} };
    const segments = path.split('/').filter(Boolean);
    for (const pattern of this.patterns) {
      const params = matchPattern(pattern, segments);
      if (params) return { methods: pattern.methods, params };
    }
    return undefined;
  }
}

/** The parameters `segments` (a path, split) give `pattern`, or `undefined` when it does not fit. */
function matchPattern(pattern: PathPattern, segments: readonly string[]): RouteParams | undefined {
  const own = pattern.segments;
  if (pattern.mount ? segments.length < own.length : segments.length !== own.length) {
    return undefined;
  }
  const params: Record<string, string> = {};
  for (const [i, segment] of own.entries()) {
    const actual = segments[i]!;
    if (segment.startsWith(':')) {
      try {
        params[segment.slice(1)] = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
    } else if (segment !== actual) {
      return undefined;
    }
  }
  if (pattern.mount) params['*'] = `/${segments.slice(own.length).join('/')}`;
  return params;
}

/** Answers `status` with a plain-text `body`. */
export function sendText(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

/** Answers `status` with `body` as JSON (never cached: the console polls it). */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  response.end(text);
}
