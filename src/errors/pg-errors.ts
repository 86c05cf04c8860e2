/**
 * The SQLSTATEs envdata acts on, by name (PostgreSQL, Appendix A "Error Codes"), and the one way
 * to read a code off an error: `pg` errors carry the SQLSTATE, Node's socket errors their `E…`
 * code, both as `code`.
 */
export const SQLSTATE = {
  /** 23505: a row with this key exists (also a concurrent `create database` on pg_database). */
  uniqueViolation: '23505',
  /** 42P04: `create database` of a name that exists. */
  duplicateDatabase: '42P04',
  /** 3D000: the database named in the URL does not exist. */
  invalidCatalogName: '3D000',
  /** 28P01: wrong password. */
  invalidPassword: '28P01',
  /** 28000: no pg_hba.conf entry, or the role does not exist. */
  invalidAuthorization: '28000',
  /** 42501: the role lacks a privilege (a function revoked from PUBLIC, say). */
  insufficientPrivilege: '42501',
  /**
   * 55P03: a lock was not granted within `lock_timeout` (or `nowait`): a DDL of envdata gave up
   * behind a reader, to try again later.
   */
  lockNotAvailable: '55P03',
  /** 57014: the statement was cancelled (`pg_cancel_backend`, `statement_timeout`). */
  queryCanceled: '57014',
  /** 53300: max_connections reached ("sorry, too many clients already"). */
  tooManyConnections: '53300',
  /** 57P01: `pg_ctl stop`, `pg_terminate_backend`. */
  adminShutdown: '57P01',
  /** 57P02: the server crashed. */
  crashShutdown: '57P02',
  /** 57P03: the server is starting up or recovering. */
  cannotConnectNow: '57P03',
} as const;

export type SqlState = (typeof SQLSTATE)[keyof typeof SQLSTATE];

/** The `code` of a `pg` or Node error (a SQLSTATE or `ECONNREFUSED`…), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether `error` is Postgres reporting `state`. */
export function hasSqlState(error: unknown, state: SqlState): boolean {
  return errorCode(error) === state;
}

/** Whether `error` is a unique violation (23505): someone stored that key first. */
export function isUniqueViolation(error: unknown): boolean {
  return hasSqlState(error, SQLSTATE.uniqueViolation);
}
