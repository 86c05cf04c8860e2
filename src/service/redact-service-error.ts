import { containsSecret, scrubSecret } from './scrub-secret.js';
import { ServiceError } from './service-error.js';

/**
 * The error as thrown, unless the key slipped into its message, details or cause (a transport
 * error quoting the request, say; response bodies are already scrubbed by the client before
 * anything reads them): then a copy with the key replaced by `[redacted]`. The client passes
 * every error it throws through here, so no path can leak the key.
 */
export function redactServiceError(error: unknown, secret: string): unknown {
  if (!(error instanceof ServiceError)) return error;
  const details = JSON.stringify(error.details);
  const cause =
    error.cause instanceof Error ? `${error.cause.message}${error.cause.stack ?? ''}` : '';
  if (
    !containsSecret(error.message, secret) &&
    !containsSecret(details, secret) &&
    !containsSecret(cause, secret)
  ) {
    return error;
  }
  const scrub = (text: string): string => scrubSecret(text, secret);
  return new ServiceError(error.code, scrub(error.message), {
    endpoint: error.endpoint,
    httpStatus: error.httpStatus,
    retryable: error.retryable,
    retryAfterMs: error.retryAfterMs,
    details: JSON.parse(scrub(details)) as Record<string, unknown>,
    cause: containsSecret(cause, secret) ? new Error(scrub(String(error.cause))) : error.cause,
  });
}
