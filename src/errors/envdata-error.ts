import type { ErrorCode } from './error-code.js';

export interface EnvdataErrorOptions {
  /** Whether repeating the same operation later can succeed. Default `false`. */
  retryable?: boolean;
  /** Structured context for logs and the ledger. Never put secrets here. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The one error base of envdata: a stable `code`, whether a retry can help, structured `details`
 * and the original `cause`. Messages are written for the operator: what failed and what to do.
 */
export class EnvdataError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: EnvdataErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EnvdataError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = Object.freeze({ ...options.details });
  }
}

export function isEnvdataError(error: unknown): error is EnvdataError {
  return error instanceof EnvdataError;
}
