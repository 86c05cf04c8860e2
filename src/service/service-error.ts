import { EnvdataError, type EnvdataErrorOptions } from '../errors/envdata-error.js';
import type { ServiceErrorCode } from '../errors/error-code.js';

export interface ServiceErrorOptions extends EnvdataErrorOptions {
  /**
   * The endpoint path (`/history/pollen/by-lat-lng`), never the query string or headers.
   * `undefined` when the error was raised while parsing an archived payload.
   */
  endpoint: string | undefined;
  /** The HTTP status the service answered with; absent for transport errors and query rules. */
  httpStatus?: number;
  /** For `RATE_LIMITED` (and any status that sent one): the wait `Retry-After` asked for, in ms. */
  retryAfterMs?: number;
}

/**
 * An error of the Environmental Data Service client. Callers branch on `code` and `retryable`,
 * never on the message; the message tells the operator what to do. Never carries the API key.
 *
 * @example
 * ```ts
 * try { await client.pollenHistoryByLatLng(query); }
 * catch (error) {
 *   if (error instanceof ServiceError && error.code === 'RANGE_TOO_LONG') shrinkWindow();
 * }
 * ```
 */
export class ServiceError extends EnvdataError {
  declare readonly code: ServiceErrorCode;
  readonly endpoint: string | undefined;
  readonly httpStatus: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(code: ServiceErrorCode, message: string, options: ServiceErrorOptions) {
    super(code, message, options);
    this.name = 'ServiceError';
    this.endpoint = options.endpoint;
    this.httpStatus = options.httpStatus;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Narrows `unknown` to a `ServiceError`, optionally of one code. */
export function isServiceError(error: unknown, code?: ServiceErrorCode): error is ServiceError {
  return error instanceof ServiceError && (code === undefined || error.code === code);
}
