import type { Logger } from '../logging/create-logger.js';

/** Options of `createServiceClient`; the shape of `Config['service']` plus the key and a logger. */
export interface ServiceClientOptions {
  /** Base address, e.g. `https://api.example.com` or `http://127.0.0.1:8787`; a path prefix is kept. */
  readonly baseUrl: string;
  /** Sent as `x-api-key`; never logged, never in an error. */
  readonly apiKey: string;
  /** Sent as `Accept-Language` when set. */
  readonly language?: string | undefined;
  /** Keep-alive connections to the service (the pool's upper bound). */
  readonly connections: number;
  /** Limit for establishing a connection. */
  readonly connectTimeoutMs: number;
  /** Limit for one request, from sending it to the last byte of the body. */
  readonly requestTimeoutMs: number;
  /**
   * Largest answer body read, in bytes (ENVDATA_HTTP_MAX_BODY_BYTES); a larger one is refused
   * as soon as it passes the limit (`RESPONSE_TOO_LARGE`). Default `DEFAULT_MAX_BODY_BYTES`.
   */
  readonly maxBodyBytes?: number | undefined;
  /** Aborting it abandons every call in flight (`ABORTED`) and refuses new ones: a shutdown. */
  readonly signal?: AbortSignal | undefined;
  /** Receives a `debug` line per call and a `warn` line per payload with rejected records. */
  readonly logger?: Logger | undefined;
  /**
   * Told of every request that reached the wire, once it is answered or failed: the endpoint's
   * logical `name` and the HTTP status as a string (`"200"`, `"429"`), or `"error"` for a
   * transport failure or timeout. A query refused before sending is no call. It must be cheap
   * and must not throw (metrics, `envdata.api_call_minute`).
   */
  readonly onCall?: ((endpoint: string, status: string) => void) | undefined;
}

/** 1 MiB: about 29 times the largest 48 h history body of the simulator (36,352 bytes). */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;
