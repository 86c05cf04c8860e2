import { sql, type Kysely } from 'kysely';

/**
 * Readers cannot hold up writers: in this database, `EXECUTE` on every advisory lock function
 * (`pg_advisory_*`, `pg_try_advisory_*`: session and transaction, shared and exclusive, both key
 * forms) and every large object function (`lo_*`, `loread`, `lowrite`) is revoked from PUBLIC.
 * The advisory lock functions are granted back to the database owner and to the role running
 * the migrations (the app's role: the feeder, the pacer, the migrator and the partition creator
 * take advisory locks as it). So `envdata_bi`, or any other role of the cluster that may connect,
 * can neither take a lock envdata waits for nor write a large object.
 *
 * The functions belong to the bootstrap superuser: as any other role (a managed server's admin
 * role) nothing changes and a warning says what a superuser should run. Function privileges live
 * in each database's catalog: other databases keep theirs. Frozen in time: plain SQL, no app
 * imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    do $do$
    declare
      owner_name text := (select pg_get_userbyid(datdba) from pg_database
                          where datname = current_database());
      advisory text;
      everything text;
    begin
      if not (select bool_and(pg_has_role(p.proowner, 'USAGE')) from pg_proc p
              where p.pronamespace = 'pg_catalog'::regnamespace and p.proname ~ '^pg_(try_)?advisory_') then
        raise warning 'envdata: % may not revoke the advisory lock and large object functions from PUBLIC, so envdata_bi can still take locks envdata waits for: a superuser should run envdata bi-role on this database (docs/warehouse.md, "Locks and large objects")', current_user;
        return;
      end if;
      select string_agg(format('pg_catalog.%I(%s)', p.proname, pg_get_function_identity_arguments(p.oid)), ', ')
        filter (where p.proname ~ '^pg_(try_)?advisory_'),
        string_agg(format('pg_catalog.%I(%s)', p.proname, pg_get_function_identity_arguments(p.oid)), ', ')
        into advisory, everything
      from pg_proc p
      where p.pronamespace = 'pg_catalog'::regnamespace
        and (p.proname ~ '^pg_(try_)?advisory_' or p.proname ~ '^(lo_.*|loread|lowrite)$');
      execute format('grant execute on function %s to %I, %I', advisory, owner_name, current_user);
      execute format('revoke execute on function %s from public', everything);
    end
    $do$;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    do $do$
    declare
      everything text;
    begin
      select string_agg(format('pg_catalog.%I(%s)', p.proname, pg_get_function_identity_arguments(p.oid)), ', ')
        into everything
      from pg_proc p
      where p.pronamespace = 'pg_catalog'::regnamespace
        and (p.proname ~ '^pg_(try_)?advisory_' or p.proname ~ '^(lo_.*|loread|lowrite)$');
      if (select bool_and(pg_has_role(p.proowner, 'USAGE')) from pg_proc p
          where p.pronamespace = 'pg_catalog'::regnamespace and p.proname ~ '^pg_(try_)?advisory_') then
        execute format('grant execute on function %s to public', everything);
      end if;
    end
    $do$;
  `.execute(db);
}
