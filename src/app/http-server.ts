import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { coerceError } from '../errors/coerce-error.js';
import { trackResource } from '../lifecycle/open-resources.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import type { Logger } from '../logging/create-logger.js';
import type { AppComponent } from './app-component.js';

/** Answers one request; a rejection is logged and answered 500. */
export type HttpHandler = (request: IncomingMessage, response: ServerResponse) => unknown;

/** A handler for one method and path (the path without its query string). */
export interface HttpRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly handler: HttpHandler;
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
 * The process's own HTTP server (a `node:http` server), for operators and their tools: health
 * now, metrics and a console next. Routes are matched on method and exact path and may be added
 * before or after it starts; an unknown path answers 404, a known path with another method 405.
 * `HEAD` is answered by the `GET` handler, without the body.
 */
export class HttpServer implements AppComponent {
  readonly name = 'http';
  /** Path → method → handler. */
  private readonly routes = new Map<string, Map<string, HttpHandler>>();
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
    let methods = this.routes.get(path);
    if (!methods) this.routes.set(path, (methods = new Map()));
    methods.set(method, handler);
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
    const methods = this.routes.get(path);
    if (!methods) return sendText(response, 404, 'not found\n');
    const method = request.method === 'HEAD' ? 'GET' : (request.method ?? 'GET');
    const handler = methods.get(method);
    if (!handler) {
      response.setHeader('allow', [...methods.keys()].join(', '));
      return sendText(response, 405, 'method not allowed\n');
    }
    try {
      await handler(request, response);
    } catch (thrown) {
      this.log.warn({ err: coerceError(thrown), path }, 'HTTP handler failed');
      if (!response.headersSent) sendText(response, 500, 'internal error\n');
      else response.destroy();
    }
  }
}

/** Answers `status` with a plain-text `body`. */
export function sendText(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}
