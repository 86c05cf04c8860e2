import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { EnvdataError } from '../errors/envdata-error.js';
import { fenceLockFunctions, type LockFunctionFence } from './fence-lock-functions.js';
import {
  BI_CONNECTION_LIMIT,
  BI_IDLE_IN_TRANSACTION_TIMEOUT,
  BI_ROLE,
  BI_STATEMENT_TIMEOUT,
  biRoleNameProblem,
} from './bi-role-settings.js';
import { resetBiRoleSettings } from './reset-bi-role-settings.js';
import type { Database } from './schema.js';

export { BI_CONNECTION_LIMIT, BI_IDLE_IN_TRANSACTION_TIMEOUT, BI_ROLE, BI_STATEMENT_TIMEOUT };

export interface BiRoleOptions {
  /** The role to create or refresh; default `envdata_bi`. A plain identifier (`biRoleNameProblem`). */
  readonly role?: string;
  /** Makes the role a login role with this password; absent, the login is left as it is. */
  readonly password?: string;
}

/** What `ensureBiRole` found changed and put back, and where the lock functions stand. */
export interface BiRoleReport {
  readonly role: string;
  /** `rolcanlogin` as read back from `pg_roles` after the changes. */
  readonly canLogIn: boolean;
  /** Each setting of the role that was not as documented, e.g. `statement_timeout 0 → 60s`. */
  readonly reset: readonly string[];
  /** The advisory lock and large object functions of the database (`fenceLockFunctions`). */
  readonly fence: LockFunctionFence;
}

/**
 * Makes sure the read-only BI role exists and may read schema `analytics` (its views, and call
 * its functions) and nothing else.
 * With a password it becomes a login role for Metabase, Superset, Grafana or psql.
 * (The migrations create it too; this re-applies the grants and sets the login.)
 *
 * In the current database the role gets `CONNECT` but no `TEMP`: temporary tables are revoked
 * from PUBLIC (which has them by default) and granted back to the database owner and to the
 * current role, which the app runs as (`refresh_daily_rollups()` uses `pg_temp` tables). No
 * advisory lock and no large object either: `fenceLockFunctions` (as a superuser only).
 *
 * The role's `statement_timeout`, `idle_in_transaction_session_timeout` and connection limit are
 * put back to the documented values every time, both the role-wide settings and those of the
 * role in the current database (which override them): a BI session may `ALTER ROLE envdata_bi
 * SET statement_timeout = 0` for itself, and PostgreSQL offers no way to forbid that, nor a
 * session's own `SET` (`resetBiRoleSettings`; long-running processes do it too: `checkBiRoles`).
 *
 * The role is cluster-wide: fencing it out of the cluster's other databases is the
 * administrator's job (docs/warehouse.md, "Fencing the role"). Where two warehouses share a
 * server, each names its own (`role`), so that one's password and settings are not the other's.
 * A role that is more than a reader (a superuser, the database owner, the current user, one that
 * may create roles or databases, or a member of such a role) is refused before anything changes:
 * this would cut its privileges and reset its settings.
 */
export async function ensureBiRole(
  db: Kysely<Database>,
  options: BiRoleOptions = {},
): Promise<BiRoleReport> {
  const roleName = options.role ?? BI_ROLE;
  const problem = biRoleNameProblem(roleName);
  if (problem !== undefined) throw new EnvdataError('USAGE', problem);
  const { name, owner } = await currentDatabase(db);
  await refusePrivilegedRole(db, roleName, owner);
  const role = sql.id(roleName);
  // A DO block takes no bind parameters: the name is inlined, quoted.
  await sql`
    do $do$
    begin
      if not exists (select 1 from pg_roles where rolname = ${sql.lit(roleName)}) then
        create role ${role} nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end
    $do$`.execute(db);
  const database = sql.id(name);
  await sql`grant usage on schema analytics to ${role}`.execute(db);
  await sql`grant select on all tables in schema analytics to ${role}`.execute(db);
  // The analytics functions (`analytics.hour_status`) read only analytics views, as their caller.
  await sql`grant execute on all functions in schema analytics to ${role}`.execute(db);
  await sql`revoke all on schema envdata from ${role}`.execute(db);
  await sql`grant connect on database ${database} to ${role}`.execute(db);
  await sql`revoke temporary on database ${database} from public`.execute(db);
  await sql`grant temporary on database ${database} to ${sql.id(owner)}, current_user`.execute(db);
  await sql`revoke temporary on database ${database} from ${role}`.execute(db);
  const fence = await fenceLockFunctions(db);
  const reset = await resetBiRoleSettings(db, roleName);
  if (options.password !== undefined) {
    // ALTER ROLE takes no bind parameters: the literal is escaped by pg, never logged.
    await sql
      .raw(
        `alter role ${pg.escapeIdentifier(roleName)} login password ${pg.escapeLiteral(options.password)}`,
      )
      .execute(db);
  }
  const { rows } = await sql<{ can_log_in: boolean }>`
    select rolcanlogin as can_log_in from pg_roles where rolname = ${roleName}`.execute(db);
  return { role: roleName, canLogIn: rows[0]?.can_log_in === true, reset, fence };
}

/**
 * Throws (`CONFLICT`, nothing changed) when `role` exists and is more than a reader: `--role
 * postgres` must not take the superuser's grants and settings, nor its password.
 */
async function refusePrivilegedRole(
  db: Kysely<Database>,
  role: string,
  owner: string,
): Promise<void> {
  const { rows } = await sql<{ why: string | null }>`
    select case
      when r.rolsuper then 'a superuser'
      when r.rolcreaterole or r.rolcreatedb or r.rolreplication or r.rolbypassrls
        then 'allowed to create roles or databases, to replicate or to bypass row security'
      when r.rolname = current_user then 'the role this command runs as'
      when r.rolname = ${owner} then 'the owner of this database'
      when pg_has_role(r.oid, ${owner}, 'MEMBER') or pg_has_role(r.oid, current_user, 'MEMBER')
        then 'a member of the database owner or of the role this command runs as'
    end as why
    from pg_roles r where r.rolname = ${role}`.execute(db);
  const why = rows[0]?.why;
  if (why !== undefined && why !== null) {
    throw new EnvdataError(
      'CONFLICT',
      `role ${role} is ${why}, not a read-only role: bi-role would revoke its access and reset its settings, so it changed nothing; name a role of its own with --role`,
      { details: { role } },
    );
  }
}

async function currentDatabase(db: Kysely<Database>): Promise<{ name: string; owner: string }> {
  const { rows } = await sql<{ name: string; owner: string }>`
    select datname as name, pg_get_userbyid(datdba) as owner
    from pg_database where datname = current_database()`.execute(db);
  return rows[0]!;
}
