import { sql, type Kysely } from 'kysely';

/**
 * A reader never holds up the creation of a partition (issue 37).
 *
 * `create table … partition of` locks the parent table ACCESS EXCLUSIVE: it waits for every
 * reader of the parent, a BI report over an analytics view included, and while it waits every
 * later store into that table queues behind it. The month's snapshot partitions are created
 * while snapshots land, so one long report at a month's boundary stopped the stores of every
 * snapshot.
 *
 * `envdata.ensure_month_partitions` and `envdata.ensure_year_partitions` now create the partition
 * as a table of its own (`like` the parent: its columns, defaults and checks) and attach it
 * (`alter table … attach partition`): SHARE UPDATE EXCLUSIVE on the parent, which neither readers
 * nor writers conflict with. Attaching gives the new table the parent's indexes, keys and foreign
 * keys; it is empty, so checking its bounds reads nothing. Same partitions, same names, same
 * bounds, same indexes as before.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function envdata.ensure_month_partitions(parent regclass, first_month date,
      last_month date)
    returns int language plpgsql as $fn$
    declare
      m date;
      created int := 0;
      part text;
      schema_name text;
      table_name text;
    begin
      select n.nspname, c.relname into schema_name, table_name
        from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = parent;
      for m in select generate_series(date_trunc('month', first_month),
          date_trunc('month', last_month), interval '1 month')::date loop
        part := format('%s_m%s', table_name, to_char(m, 'YYYY_MM'));
        -- Looked up before the lock: every store of a snapshot asks, nearly always for a month
        -- that exists.
        continue when to_regclass(format('%I.%I', schema_name, part)) is not null;
        -- One creator at a time across every process; asked again after the lock with a query,
        -- whose fresh snapshot sees a partition another process created meanwhile.
        perform pg_advisory_xact_lock(hashtext('envdata.partitions'));
        if not exists (select 1 from pg_class where relname = part
            and relnamespace = schema_name::regnamespace) then
          execute format('create table %I.%I (like %s including defaults including constraints)',
            schema_name, part, parent);
          execute format(
            'alter table %s attach partition %I.%I for values from (%L) to (%L)',
            parent, schema_name, part,
            make_timestamptz(extract(year from m)::int, extract(month from m)::int, 1, 0, 0, 0, 'UTC'),
            make_timestamptz(extract(year from m + interval '1 month')::int,
              extract(month from m + interval '1 month')::int, 1, 0, 0, 0, 'UTC'));
          created := created + 1;
        end if;
      end loop;
      return created;
    end
    $fn$;

    create or replace function envdata.ensure_year_partitions(parent regclass, first_year int,
      last_year int)
    returns int language plpgsql as $fn$
    declare
      y int;
      created int := 0;
      part text;
      schema_name text;
      table_name text;
    begin
      select n.nspname, c.relname into schema_name, table_name
        from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = parent;
      -- One creator at a time across every process; the others find the partition there.
      perform pg_advisory_xact_lock(hashtext('envdata.partitions'));
      for y in first_year .. last_year loop
        part := format('%s_y%s', table_name, y);
        if to_regclass(format('%I.%I', schema_name, part)) is null then
          execute format('create table %I.%I (like %s including defaults including constraints)',
            schema_name, part, parent);
          execute format('create index on %I.%I using brin (observed_at)', schema_name, part);
          execute format(
            'alter table %s attach partition %I.%I for values from (%L) to (%L)',
            parent, schema_name, part,
            make_timestamptz(y, 1, 1, 0, 0, 0, 'UTC'),
            make_timestamptz(y + 1, 1, 1, 0, 0, 0, 'UTC'));
          created := created + 1;
        end if;
      end loop;
      return created;
    end
    $fn$;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function envdata.ensure_month_partitions(parent regclass, first_month date,
      last_month date)
    returns int language plpgsql as $fn$
    declare
      m date;
      created int := 0;
      part text;
      schema_name text;
      table_name text;
    begin
      select n.nspname, c.relname into schema_name, table_name
        from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = parent;
      for m in select generate_series(date_trunc('month', first_month),
          date_trunc('month', last_month), interval '1 month')::date loop
        part := format('%s_m%s', table_name, to_char(m, 'YYYY_MM'));
        continue when to_regclass(format('%I.%I', schema_name, part)) is not null;
        perform pg_advisory_xact_lock(hashtext('envdata.partitions'));
        if not exists (select 1 from pg_class where relname = part
            and relnamespace = schema_name::regnamespace) then
          execute format(
            'create table %I.%I partition of %s for values from (%L) to (%L)',
            schema_name, part, parent,
            make_timestamptz(extract(year from m)::int, extract(month from m)::int, 1, 0, 0, 0, 'UTC'),
            make_timestamptz(extract(year from m + interval '1 month')::int,
              extract(month from m + interval '1 month')::int, 1, 0, 0, 0, 'UTC'));
          created := created + 1;
        end if;
      end loop;
      return created;
    end
    $fn$;

    create or replace function envdata.ensure_year_partitions(parent regclass, first_year int,
      last_year int)
    returns int language plpgsql as $fn$
    declare
      y int;
      created int := 0;
      part text;
      schema_name text;
      table_name text;
    begin
      select n.nspname, c.relname into schema_name, table_name
        from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = parent;
      perform pg_advisory_xact_lock(hashtext('envdata.partitions'));
      for y in first_year .. last_year loop
        part := format('%s_y%s', table_name, y);
        if to_regclass(format('%I.%I', schema_name, part)) is null then
          execute format(
            'create table %I.%I partition of %s for values from (%L) to (%L)',
            schema_name, part, parent,
            make_timestamptz(y, 1, 1, 0, 0, 0, 'UTC'),
            make_timestamptz(y + 1, 1, 1, 0, 0, 0, 'UTC'));
          execute format('create index on %I.%I using brin (observed_at)', schema_name, part);
          created := created + 1;
        end if;
      end loop;
      return created;
    end
    $fn$;
  `.execute(db);
}
