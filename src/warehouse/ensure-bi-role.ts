import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

export const BI_ROLE = 'envdata_bi';

/**
 * Makes sure the read-only BI role exists and may read schema `analytics` and nothing else.
 * With a password it becomes a login role for Metabase, Superset, Grafana or psql.
 * (The migrations create it too; this re-applies the grants and sets the login.)
 */
export async function ensureBiRole(db: Kysely<Database>, password?: string): Promise<void> {
  await sql`
    do $do$
    begin
      if not exists (select 1 from pg_roles where rolname = 'envdata_bi') then
        create role envdata_bi nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end
    $do$`.execute(db);
  await sql`grant usage on schema analytics to envdata_bi`.execute(db);
  await sql`grant select on all tables in schema analytics to envdata_bi`.execute(db);
  await sql`revoke all on schema envdata from envdata_bi`.execute(db);
  await sql`grant connect on database ${sql.id(await currentDatabase(db))} to envdata_bi`.execute(
    db,
  );
  if (password !== undefined) {
    // ALTER ROLE takes no bind parameters: the literal is escaped by pg, never logged.
    await sql.raw(`alter role envdata_bi login password ${pg.escapeLiteral(password)}`).execute(db);
  }
}

async function currentDatabase(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(db);
  return rows[0]!.name;
}
