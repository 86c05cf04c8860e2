import { sql, type Kysely } from 'kysely';

/**
 * The read-only role `envdata_bi` may read the analytics views and nothing more:
 *
 * - no temporary tables in this database: `TEMP` is granted to PUBLIC by default, so it is revoked
 *   from PUBLIC and granted back to the database owner and to the role running the migrations
 *   (the app's role: `envdata.refresh_daily_rollups()` creates `pg_temp` tables as it);
 * - a default `statement_timeout` of 60 s and at most 30 connections, set on the role unless an
 *   administrator already chose other values (role settings hold in every database of the
 *   cluster; a session can still `SET statement_timeout`: PostgreSQL has no way to forbid that).
 *
 * Without the privilege to alter the role (it was created by another role of the cluster), the
 * role settings are skipped with a warning saying what to run; the database grants still apply.
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    do $do$
    declare
      here text := current_database();
      owner_name text := (select pg_get_userbyid(datdba) from pg_database where datname = here);
    begin
      execute format('revoke temporary on database %I from public', here);
      execute format('grant temporary on database %I to %I', here, owner_name);
      execute format('grant temporary on database %I to %I', here, current_user);
      if not exists (select 1 from pg_roles where rolname = 'envdata_bi') then
        return;
      end if;
      execute format('revoke temporary on database %I from envdata_bi', here);
      begin
        if not exists (
          select 1 from pg_db_role_setting s join pg_roles r on r.oid = s.setrole
          where r.rolname = 'envdata_bi' and s.setdatabase = 0
            and exists (select 1 from unnest(s.setconfig) c where c like 'statement_timeout=%')
        ) then
          alter role envdata_bi set statement_timeout = '60s';
        end if;
        if (select rolconnlimit from pg_roles where rolname = 'envdata_bi') = -1 then
          alter role envdata_bi connection limit 30;
        end if;
      exception when insufficient_privilege then
        raise warning 'envdata: cannot alter role envdata_bi (%); a superuser should run: alter role envdata_bi set statement_timeout = ''60s''; alter role envdata_bi connection limit 30;', sqlerrm;
      end;
    end
    $do$;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    do $do$
    begin
      execute format('grant temporary on database %I to public', current_database());
      if exists (select 1 from pg_roles where rolname = 'envdata_bi') then
        alter role envdata_bi reset statement_timeout;
        alter role envdata_bi connection limit -1;
      end if;
    end
    $do$;
  `.execute(db);
}
