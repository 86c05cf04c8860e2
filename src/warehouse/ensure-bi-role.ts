import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

/** The read-only role BI tools log in as (the migrations, frozen in time, spell it out). */
export const BI_ROLE = 'envdata_bi';

/** Default `statement_timeout` of the BI role, unless an administrator set another. */
export const BI_STATEMENT_TIMEOUT = '60s';

/** Default connection limit of the BI role, unless an administrator set another. */
export const BI_CONNECTION_LIMIT = 30;

/**
 * Makes sure the read-only BI role exists and may read schema `analytics` and nothing else.
 * With a password it becomes a login role for Metabase, Superset, Grafana or psql.
 * (The migrations create it too; this re-applies the grants and sets the login.)
 *
 * In the current database the role gets `CONNECT` but no `TEMP`: temporary tables are revoked
 * from PUBLIC (which has them by default) and granted back to the database owner and to the
 * current role, which the app runs as (`refresh_daily_rollups()` uses `pg_temp` tables). The
 * role gets a default `statement_timeout` of 60 s and a limit of 30 connections, unless an
 * administrator already set other values (kept as they are). A session of the role can still
 * `SET statement_timeout` itself: PostgreSQL offers no way to forbid that.
 *
 * The role is cluster-wide: fencing it out of the cluster's other databases is the
 * administrator's job (docs/warehouse.md, "Fencing the role").
 */
export async function ensureBiRole(db: Kysely<Database>, password?: string): Promise<void> {
  const role = sql.id(BI_ROLE);
  // A DO block takes no bind parameters: the name is inlined, quoted.
  await sql`
    do $do$
    begin
      if not exists (select 1 from pg_roles where rolname = ${sql.lit(BI_ROLE)}) then
        create role ${role} nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end
    $do$`.execute(db);
  const { name, owner } = await currentDatabase(db);
  const database = sql.id(name);
  await sql`grant usage on schema analytics to ${role}`.execute(db);
  await sql`grant select on all tables in schema analytics to ${role}`.execute(db);
  await sql`revoke all on schema envdata from ${role}`.execute(db);
  await sql`grant connect on database ${database} to ${role}`.execute(db);
  await sql`revoke temporary on database ${database} from public`.execute(db);
  await sql`grant temporary on database ${database} to ${sql.id(owner)}, current_user`.execute(db);
  await sql`revoke temporary on database ${database} from ${role}`.execute(db);
  await applyRoleDefaults(db);
  if (password !== undefined) {
    // ALTER ROLE takes no bind parameters: the literal is escaped by pg, never logged.
    await sql
      .raw(
        `alter role ${pg.escapeIdentifier(BI_ROLE)} login password ${pg.escapeLiteral(password)}`,
      )
      .execute(db);
  }
}

/** Sets the statement timeout and connection limit where no administrator set them. */
async function applyRoleDefaults(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ has_timeout: boolean; connection_limit: number }>`
    select exists (
        select 1 from pg_db_role_setting s, unnest(s.setconfig) c
        where s.setrole = r.oid and s.setdatabase = 0 and c like 'statement_timeout=%'
      ) as has_timeout,
      r.rolconnlimit as connection_limit
    from pg_roles r where r.rolname = ${BI_ROLE}`.execute(db);
  const role = rows[0];
  if (role !== undefined && !role.has_timeout) {
    await sql
      .raw(
        `alter role ${pg.escapeIdentifier(BI_ROLE)} set statement_timeout = ${pg.escapeLiteral(BI_STATEMENT_TIMEOUT)}`,
      )
      .execute(db);
  }
  if (role !== undefined && role.connection_limit === -1) {
    await sql
      .raw(`alter role ${pg.escapeIdentifier(BI_ROLE)} connection limit ${BI_CONNECTION_LIMIT}`)
      .execute(db);
  }
}

async function currentDatabase(db: Kysely<Database>): Promise<{ name: string; owner: string }> {
  const { rows } = await sql<{ name: string; owner: string }>`
    select datname as name, pg_get_userbyid(datdba) as owner
    from pg_database where datname = current_database()`.execute(db);
  return rows[0]!;
}
