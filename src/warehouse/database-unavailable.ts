import { EnvdataError } from '../errors/envdata-error.js';
import { SQLSTATE, errorCode } from '../errors/pg-errors.js';
import { maskUrl } from './database-url.js';
import { isLocalPostgresUrl } from './local-postgres-password.js';

const START_HINT =
  'start Postgres (`docker compose up -d postgres`, or on Debian `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`) or set DATABASE_URL';

/** Whether a `pg` error means the server could not be reached or refused the login. */
export function isConnectionFailure(error: unknown): boolean {
  const code = errorCode(error);
  if (code === undefined) return false;
  return (
    ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH'].includes(
      code,
    ) ||
    code === SQLSTATE.invalidCatalogName ||
    code === SQLSTATE.invalidPassword ||
    code === SQLSTATE.invalidAuthorization ||
    code === SQLSTATE.cannotConnectNow
  );
}

/** The one-line operator message for a Postgres that does not answer. */
export function databaseUnavailable(url: string, cause: unknown): EnvdataError {
  const code = errorCode(cause);
  const reason =
    code === SQLSTATE.invalidCatalogName
      ? 'has no such database: run `envdata migrate` (it creates it)'
      : code === SQLSTATE.invalidPassword || code === SQLSTATE.invalidAuthorization
        ? 'refused the login: check the user and password in DATABASE_URL'
        : isLocalPostgresUrl(url)
          ? // Its own server, stopped (`envdata local stop`, a reboot): Docker is no answer there.
            'does not answer: it is the local PostgreSQL of `envdata local`; start it again with `envdata local start` (same ENVDATA_LOCAL_DIR), or set DATABASE_URL'
          : `does not answer: ${START_HINT}`;
  return new EnvdataError('DATABASE_UNAVAILABLE', `DATABASE_URL ${maskUrl(url)} ${reason}`, {
    retryable: true,
    cause,
  });
}
