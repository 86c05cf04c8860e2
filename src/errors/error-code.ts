/**
 * Every stable error code envdata raises, in one place. Code branches on these, never on
 * `error.message`.
 *
 * Service codes mirror the status table of the upstream spec (docs/architecture.md); the rest
 * belong to the application.
 */
export const SERVICE_ERROR_CODES = [
  'NO_DATA',
  'PARTIAL',
  'BAD_REQUEST',
  'RANGE_TOO_LONG',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_COVERED',
  'QUOTA_EXCEEDED',
  'RATE_LIMITED',
  'SERVER_ERROR',
  'TIMEOUT',
  'NETWORK',
  'MALFORMED_RESPONSE',
  // The answer's body is over ENVDATA_HTTP_MAX_BODY_BYTES: not read further.
  'RESPONSE_TOO_LARGE',
  // The caller abandoned the call (a worker's shutdown deadline): no answer was waited for.
  'ABORTED',
  'INVALID_QUERY',
] as const;

export const APP_ERROR_CODES = [
  'CONFIG_INVALID',
  'USAGE',
  'DATABASE_UNAVAILABLE',
  'REDIS_UNAVAILABLE',
  // The local PostgreSQL of `envdata local` (src/local) could not be created, started or stopped.
  'LOCAL_POSTGRES_FAILED',
  'MIGRATION_FAILED',
  'NOT_FOUND',
  'CONFLICT',
  'VALIDATION_FAILED',
  'INTERNAL',
] as const;

export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];
export type AppErrorCode = (typeof APP_ERROR_CODES)[number];
export type ErrorCode = ServiceErrorCode | AppErrorCode;
