import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type * as Undici from 'undici';
import { trackResource } from '../lifecycle/open-resources.js';
import type { Logger } from '../logging/create-logger.js';
import {
  CallAborted,
  RequestDeadlineExceeded,
  classifyTransportError,
} from './classify-transport-error.js';
import { elapsedMs } from './elapsed-ms.js';
import type { Endpoint } from './endpoints.js';
import { readCappedBody } from './read-capped-body.js';
import { scrubSecret } from './scrub-secret.js';
import { DEFAULT_MAX_BODY_BYTES, type ServiceClientOptions } from './service-client-options.js';
import { ServiceError } from './service-error.js';

/** An answer of the service as it came over the wire, its body read and scrubbed of the key. */
export interface ServiceAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** When the request was sent (`performance.now()`), for the call's duration. */
  readonly started: number;
}

/**
 * The HTTP side of the service client: one keep-alive connection pool to the service, the
 * headers every request carries, and one GET per call, bounded by the connect and request
 * limits and abandoned when the client's `signal` aborts. A request that gets no whole answer
 * fails with the `ServiceError` of `classifyTransportError`; what an answer means is
 * `readServiceResponse`'s.
 */
export class ServiceTransport {
  private readonly pool: Undici.Pool;
  private readonly headers: Readonly<Record<string, string>>;
  private readonly untrack: () => void;
  /** `origin` and the path prefix: what a transport error names. */
  private readonly baseUrl: string;
  private readonly maxBodyBytes: number;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly options: ServiceClientOptions,
    origin: string,
    private readonly basePath: string,
    private readonly log: Logger | undefined,
  ) {
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    // Required here, when a client is created, not imported at the top: undici is a large package
    // that the commands which never call the service (`status`, `locations list`) would load at
    // start-up only because the app that builds this client imports this module. Its CommonJS
    // entry is the module `import 'undici'` loads too: one copy in the process.
    const { Pool } = createRequire(import.meta.url)('undici') as typeof Undici;
    this.pool = new Pool(origin, {
      connections: options.connections,
      connectTimeout: options.connectTimeoutMs,
      headersTimeout: options.requestTimeoutMs,
      bodyTimeout: options.requestTimeoutMs,
    });
    this.untrack = trackResource('service client', origin, () => this.pool.close());
    const headers: Record<string, string> = {
      'x-api-key': options.apiKey,
      accept: 'application/json',
    };
    if (options.language !== undefined && options.language !== '') {
      headers['accept-language'] = options.language;
    }
    this.headers = Object.freeze(headers);
    this.baseUrl = origin + basePath;
  }

  /**
   * Sends `GET endpoint?queryString` and reads the whole answer. Tells `onCall` of every
   * request that reached the wire; refuses one once `close()` was called.
   */
  async send(endpoint: Endpoint, queryString: string): Promise<ServiceAnswer> {
    if (this.closing !== undefined) {
      throw new ServiceError(
        'NETWORK',
        `the service client is closed; cannot call ${endpoint.path}: create a new client.`,
        { endpoint: endpoint.path, retryable: false },
      );
    }
    const { apiKey, connectTimeoutMs, requestTimeoutMs, signal, onCall } = this.options;
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new RequestDeadlineExceeded('request deadline exceeded')),
      requestTimeoutMs,
    );
    const abandon = () => controller.abort(new CallAborted('its caller aborted it: a shutdown'));
    const abandonedBefore = signal?.aborted === true;
    if (abandonedBefore) abandon();
    signal?.addEventListener('abort', abandon, { once: true });
    let status: number;
    let answered: number | undefined;
    let headers: Record<string, string | string[] | undefined>;
    let body: string;
    try {
      const response = await this.pool.request({
        path: `${this.basePath}${endpoint.path}?${queryString}`,
        method: 'GET',
        headers: this.headers,
        signal: controller.signal,
      });
      status = response.statusCode;
      answered = status;
      headers = response.headers;
      body = scrubSecret(
        await readCappedBody(response.body, response.headers, this.maxBodyBytes),
        apiKey,
      );
    } catch (thrown) {
      // A body cut short or too large still had its status: the service answered it. A call
      // abandoned before it started never reached the wire.
      if (answered !== undefined) onCall?.(endpoint.name, String(answered));
      else if (!abandonedBefore) onCall?.(endpoint.name, 'error');
      const error = classifyTransportError(thrown, {
        endpoint: endpoint.path,
        baseUrl: this.baseUrl,
        connectTimeoutMs,
        requestTimeoutMs,
      });
      this.log?.debug(
        { endpoint: endpoint.path, query: queryString, code: error.code, ms: elapsedMs(started) },
        'service call failed',
      );
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abandon);
    }
    onCall?.(endpoint.name, String(status));
    return { status, headers, body, started };
  }

  /** Closes the pool after in-flight requests finish. Idempotent. */
  close(): Promise<void> {
    return (this.closing ??= this.pool.close().finally(this.untrack));
  }
}
