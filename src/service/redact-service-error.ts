import { scrubSecrets } from '../logging/create-logger.js';
import { ServiceError } from './service-error.js';

/**
 * The error as thrown, unless the key slipped into its message, details or cause (an upstream
 * body echoing the request, say): then a copy with the key replaced by `[redacted]`. The client
 * passes every error it throws through here, so no path can leak the key.
 */
export function redactServiceError(error: unknown, secret: string): unknown {
  if (!(error instanceof ServiceError)) return error;
  const details = JSON.stringify(error.details);
  const cause =
    error.cause instanceof Error ? `${error.cause.message}${error.cause.stack ?? ''}` : '';
  if (!error.message.includes(secret) && !details.includes(secret) && !cause.includes(secret)) {
    return error;
  }
  const scrub = (text: string): string => scrubSecrets(text, [secret]);
  return new ServiceError(error.code, scrub(error.message), {
    endpoint: error.endpoint,
    httpStatus: error.httpStatus,
    retryable: error.retryable,
    retryAfterMs: error.retryAfterMs,
    partial: error.partial,
    details: JSON.parse(scrub(details)) as Record<string, unknown>,
    cause: cause.includes(secret) ? new Error(scrub(String(error.cause))) : error.cause,
  });
}
