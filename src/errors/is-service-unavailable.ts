import { isEnvdataError } from './envdata-error.js';
import { SQLSTATE, errorCode } from './pg-errors.js';

/** Socket errors of a server that is down, restarting or unreachable (Node, pg, ioredis). */
const SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a Postgres that is shutting down, crashed or starting: class 08 (connection
 * exception), 57P01 admin_shutdown (`pg_ctl stop`, `pg_terminate_backend`), 57P02
 * crash_shutdown, 57P03 cannot_connect_now (starting up, recovering); and 53300
 * too_many_connections (max_connections reached: no new connection until others close).
 */
const SQLSTATES: ReadonlySet<string> = new Set([
  SQLSTATE.tooManyConnections,
  SQLSTATE.adminShutdown,
  SQLSTATE.crashShutdown,
  SQLSTATE.cannotConnectNow,
]);

/**
 * pg and ioredis raise some connection failures as plain `Error`s with no code. Their exact
 * texts are listed here, the one place in envdata that looks at a message: these are a
 * library's fixed strings (pg/lib/client.js, pg-pool, ioredis/utils), not our own errors.
 */
const CODELESS_MESSAGES: ReadonlySet<string> = new Set([
  // pg
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  // ioredis
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
]);

/** ioredis gives up on a command after `maxRetriesPerRequest` reconnects. */
const UNAVAILABLE_NAMES: ReadonlySet<string> = new Set(['MaxRetriesPerRequestError']);

/**
 * Whether `error` means Postgres or Redis is not available right now (down, restarting,
 * unreachable, or the connection to it was cut), as opposed to a bug or a bad request. Such an
 * error is an outage to ride out: wait until the service answers again and retry, saying so
 * once, never "please report it".
 *
 * Recognises `DATABASE_UNAVAILABLE` and `REDIS_UNAVAILABLE`, socket errors, the SQLSTATEs of a
 * server shutting down or starting, and the code-less errors pg and ioredis use for a lost
 * connection; looks through `cause` and `AggregateError` (a connect to `localhost` tries each
 * address).
 */
export function isServiceUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    // An EnvdataError has been classified already: a ServiceError NETWORK wraps an ECONNRESET
    // from the service, which says nothing about Postgres or Redis.
    if (isEnvdataError(current)) {
      return current.code === 'DATABASE_UNAVAILABLE' || current.code === 'REDIS_UNAVAILABLE';
    }
    if (isUnavailableItself(current)) return true;
    if (current instanceof AggregateError && current.errors.some(isServiceUnavailable)) return true;
    current = current.cause;
  }
  return false;
}

function isUnavailableItself(error: Error): boolean {
  const code = errorCode(error);
  if (code !== undefined) {
    if (SOCKET_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  return UNAVAILABLE_NAMES.has(error.name) || CODELESS_MESSAGES.has(error.message);
}
