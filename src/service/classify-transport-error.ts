import { coerceError } from '../errors/coerce-error.js';
import { BodyTooLarge } from './read-capped-body.js';
import { ServiceError } from './service-error.js';

/** What the client knows when a request fails before a complete answer arrives. */
export interface TransportContext {
  readonly endpoint: string;
  /** The base address, for the message (it carries no secret). */
  readonly baseUrl: string;
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

/** Raised by the client's own per-request deadline; recognised here by identity of class. */
export class RequestDeadlineExceeded extends Error {
  override readonly name = 'RequestDeadlineExceeded';
}

/** The reason a call ends when its caller's signal aborts (a worker's shutdown deadline). */
export class CallAborted extends Error {
  override readonly name = 'CallAborted';
}

const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
const CLOSED_CODES: ReadonlySet<string> = new Set(['UND_ERR_DESTROYED', 'UND_ERR_CLOSED']);

/**
 * Maps a failure of the request itself (no complete HTTP answer) to a `ServiceError`: timeouts
 * to `TIMEOUT`, resets, refusals and other socket errors to `NETWORK`; all retryable, except a
 * request on a client that was closed. A body over the size limit is `RESPONSE_TOO_LARGE` (not
 * retryable: the same request gets the same answer), a call its caller abandoned `ABORTED`. The
 * original error is kept as `cause`.
 */
export function classifyTransportError(thrown: unknown, context: TransportContext): ServiceError {
  const cause = coerceError(thrown);
  const { endpoint, baseUrl } = context;
  const code = errorCode(cause);

  if (cause instanceof BodyTooLarge) {
    return new ServiceError(
      'RESPONSE_TOO_LARGE',
      `the answer of ${baseUrl} for ${endpoint} is too large (${cause.message}, ` +
        `ENVDATA_HTTP_MAX_BODY_BYTES=${cause.limitBytes}) and was not read further: ask for a ` +
        'shorter window, or raise ENVDATA_HTTP_MAX_BODY_BYTES if answers this large are expected.',
      {
        endpoint,
        retryable: false,
        cause,
        details: {
          limitBytes: cause.limitBytes,
          receivedBytes: cause.receivedBytes,
          ...(cause.declaredBytes !== undefined && { contentLength: cause.declaredBytes }),
        },
      },
    );
  }
  if (cause instanceof CallAborted) {
    return new ServiceError(
      'ABORTED',
      `the call to ${baseUrl} for ${endpoint} was abandoned (${cause.message}); nothing was ` +
        'received, the work goes back to the queue.',
      { endpoint, retryable: true, cause },
    );
  }

  if (cause instanceof RequestDeadlineExceeded || (code !== undefined && TIMEOUT_CODES.has(code))) {
    const connect = code === 'UND_ERR_CONNECT_TIMEOUT';
    const limit = connect
      ? `ENVDATA_HTTP_CONNECT_TIMEOUT_MS=${context.connectTimeoutMs}`
      : `ENVDATA_HTTP_TIMEOUT_MS=${context.requestTimeoutMs}`;
    return new ServiceError(
      'TIMEOUT',
      `${connect ? 'could not connect to' : 'no complete answer from'} ${baseUrl} for ${endpoint} ` +
        `within ${limit} (${code ?? 'deadline'}): retry with backoff; raise the limit if the ` +
        'service is slow rather than down.',
      { endpoint, retryable: true, cause, details: { transportCode: code ?? 'DEADLINE' } },
    );
  }
  if (code !== undefined && CLOSED_CODES.has(code)) {
    return new ServiceError(
      'NETWORK',
      `the service client was closed while calling ${endpoint}: create a new client.`,
      { endpoint, retryable: false, cause, details: { transportCode: code } },
    );
  }
  return new ServiceError(
    'NETWORK',
    `could not talk to ${baseUrl} for ${endpoint} (${code ?? cause.name}: ${cause.message}): ` +
      'check ENVDATA_BASE_URL and that the service is reachable; retry with backoff.',
    { endpoint, retryable: true, cause, details: { transportCode: code ?? cause.name } },
  );
}

/** The system or undici error code, looking through `cause` and `AggregateError`. */
function errorCode(error: Error): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current =
      current instanceof AggregateError && current.errors.length > 0
        ? current.errors[0]
        : current.cause;
  }
  return undefined;
}
