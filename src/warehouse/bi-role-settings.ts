// The BI role's name and settings, apart from ensure-bi-role.ts: `envdata --help` shows them
// without loading pg and Kysely.

/**
 * The read-only role BI tools log in as by default (the migrations, frozen in time, spell it out
 * and grant it each new view); `envdata bi-role --role` names another.
 */
export const BI_ROLE = 'envdata_bi';

/** `statement_timeout` of the BI role, set again by every `envdata bi-role`. */
export const BI_STATEMENT_TIMEOUT = '60s';

/**
 * `idle_in_transaction_session_timeout` of the BI role, set again by every `envdata bi-role`: a
 * BI session left open in a transaction holds its read locks, which a migration or retention's
 * drop of a month waits for (each for at most `DDL_LOCK_TIMEOUT_MS` a try: it holds up no writer).
 */
export const BI_IDLE_IN_TRANSACTION_TIMEOUT = '60s';

/** Connection limit of the BI role, set again by every `envdata bi-role`. */
export const BI_CONNECTION_LIMIT = 30;

/** Role names PostgreSQL refuses to create, or reads as someone else in `GRANT … TO`. */
const RESERVED_ROLE_NAMES = new Set([
  'public',
  'none',
  'current_user',
  'current_role',
  'session_user',
]);

/**
 * Why `name` cannot be a BI role's name, or `undefined` when it can: a plain, lower-case SQL
 * identifier (what `psql -U name` and a BI tool's user field take as written), at most 63
 * characters, neither reserved nor `pg_…` (PostgreSQL keeps those for its own roles).
 */
export function biRoleNameProblem(name: string): string | undefined {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
    return `role name "${name}" is not a plain identifier: lower-case letters, digits and _, not starting with a digit (e.g. envdata_bi_eu)`;
  }
  if (name.length > 63) return `role name "${name}" is longer than PostgreSQL's 63 characters`;
  if (name.startsWith('pg_'))
    return `role name "${name}" starts with pg_, which PostgreSQL keeps for its own roles`;
  if (RESERVED_ROLE_NAMES.has(name)) return `role name "${name}" is reserved by PostgreSQL`;
  return undefined;
}
