import { EnvdataError } from '../errors/envdata-error.js';
import { maskUrl } from './database-url.js';

const START_HINT =
  'start Postgres (`docker compose up -d postgres`, or on Debian `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`) or set DATABASE_URL';

/** Whether a `pg` error means the server could not be reached or refused the login. */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return (
    ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH'].includes(
      code,
    ) ||
    code === '3D000' || // database does not exist
    code === '28P01' || // password authentication failed
    code === '28000' || // no pg_hba.conf entry / role does not exist
    code === '57P03' // the database system is starting up
  );
}

/** The one-line operator message for a Postgres that does not answer. */
export function databaseUnavailable(url: string, cause: unknown): EnvdataError {
  const code = (cause as { code?: unknown } | null)?.code;
  const reason =
    code === '3D000'
      ? 'has no such database: run `envdata migrate` (it creates it)'
      : code === '28P01' || code === '28000'
        ? 'refused the login: check the user and password in DATABASE_URL'
        : `does not answer: ${START_HINT}`;
  return new EnvdataError('DATABASE_UNAVAILABLE', `DATABASE_URL ${maskUrl(url)} ${reason}`, {
    retryable: true,
    cause,
  });
}
