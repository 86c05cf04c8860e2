import { sql, type Kysely } from 'kysely';
import { accuracyRefresh } from './2026_11_27_0034_analytics_column_comments.js';

/** The snapshot tables, with what each has beside its columns and checks (0004): keys and indexes, named as there. */
const TABLES = [
  {
    name: 'pollen_snapshot',
    keys: `
      alter table envdata.pollen_snapshot
        add constraint pollen_snapshot_pkey
          primary key (location_id, product, fetched_at, valid_at, pollen_type),
        add constraint pollen_snapshot_location_id_fkey
          foreign key (location_id) references envdata.location on delete cascade;
      create index pollen_snapshot_valid on envdata.pollen_snapshot (location_id, valid_at);`,
  },
  {
    name: 'pollen_species_snapshot',
    keys: `
      alter table envdata.pollen_species_snapshot
        add constraint pollen_species_snapshot_pkey
          primary key (location_id, product, fetched_at, valid_at, species_id),
        add constraint pollen_species_snapshot_location_id_fkey
          foreign key (location_id) references envdata.location on delete cascade,
        add constraint pollen_species_snapshot_species_id_fkey
          foreign key (species_id) references envdata.pollen_species;`,
  },
  {
    name: 'weather_snapshot',
    keys: `
      alter table envdata.weather_snapshot
        add constraint weather_snapshot_pkey primary key (location_id, product, fetched_at, valid_at),
        add constraint weather_snapshot_location_id_fkey
          foreign key (location_id) references envdata.location on delete cascade;
      create index weather_snapshot_valid on envdata.weather_snapshot (location_id, valid_at);`,
  },
] as const;

/**
 * The forecast accuracy of the spans of local days in `pg_temp.rollup_spans` as 0034 left it:
 * the part of `refresh_daily_rollups()` after `refresh_fact_rollups()`.
 */
const ACCURACY = accuracyRefresh('precise');

/** `refresh_daily_rollups()` with `cut` (SQL) run between the fact rollups and the accuracy. */
function refreshFunction(cut: string): string {
  return `
    create or replace function envdata.refresh_daily_rollups() returns integer language plpgsql as $fn$
    declare
      refreshed integer;
      n integer;
      settled timestamptz;
    begin
      refreshed := envdata.refresh_fact_rollups();
${cut}${ACCURACY}      return refreshed;
    end
    $fn$;`;
}

/** Cuts the spans to the local days not settled (see `snapshot_retention` below). */
const CUT_SETTLED_DAYS = `
      -- A span starts at the first local day that starts at or after settled_before.
      select settled_before into settled from envdata.snapshot_retention;
      if settled is not null then
        update pg_temp.rollup_spans s set span_from = greatest(s.span_from, d.open_from)
        from (
          select timezone, case when start_of_day >= settled then start_of_day
              else start_of_day + interval '1 day' end as open_from
          from (
            select distinct timezone,
              ((settled at time zone timezone)::date)::timestamp at time zone timezone
                as start_of_day
            from pg_temp.rollup_spans
          ) t
        ) d
        where d.timezone = s.timezone;
      end if;
`;

/**
 * Rebuilds the three snapshot tables, partitioned as `partitionBy` says or plain (`''`), moving their
 * rows, with the views that read them dropped before and created again after from their own
 * definitions, comments and grants.
 */
async function rebuildTables(db: Kysely<any>, partitionBy: string): Promise<void> {
  await sql`
    -- The views that read the snapshot tables, and the views over those, deepest last.
    create temporary table snapshot_views on commit drop as
    with recursive reader(oid, depth) as (
      select r.ev_class, 1
      from pg_depend d join pg_rewrite r on r.oid = d.objid
      where d.classid = 'pg_rewrite'::regclass and d.refclassid = 'pg_class'::regclass
        and d.refobjid in ('envdata.pollen_snapshot'::regclass,
          'envdata.pollen_species_snapshot'::regclass, 'envdata.weather_snapshot'::regclass)
        and r.ev_class <> d.refobjid
      union
      select r.ev_class, reader.depth + 1
      from reader
      join pg_depend d on d.refclassid = 'pg_class'::regclass and d.refobjid = reader.oid
        and d.classid = 'pg_rewrite'::regclass
      join pg_rewrite r on r.oid = d.objid
      where r.ev_class <> reader.oid
    )
    select c.oid, format('%I.%I', n.nspname, c.relname) as name, max(reader.depth) as depth,
      rtrim(pg_get_viewdef(c.oid), ';') as definition, c.reloptions,
      obj_description(c.oid, 'pg_class') as comment,
      (select array_agg(format('comment on column %I.%I.%I is %L', n.nspname, c.relname,
          a.attname, col_description(c.oid, a.attnum)) order by a.attnum)
        from pg_attribute a
        where a.attrelid = c.oid and a.attnum > 0 and col_description(c.oid, a.attnum) is not null)
        as column_comments,
      (select array_agg(format('grant %s on %I.%I to %s', g.privilege_type, n.nspname, c.relname,
          case when g.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(g.grantee)) end)
          order by g.grantee, g.privilege_type)
        from aclexplode(c.relacl) g where g.grantee <> c.relowner) as grants
    from reader
    join pg_class c on c.oid = reader.oid
    join pg_namespace n on n.oid = c.relnamespace
    group by c.oid, n.nspname, c.relname;

    do $do$
    declare
      v record;
    begin
      for v in select * from pg_temp.snapshot_views order by depth desc loop
        execute format('drop view %s', v.name);
      end loop;
    end
    $do$;
  `.execute(db);

  for (const { name, keys } of TABLES) {
    await sql
      .raw(
        `
      alter table envdata.${name} rename to ${name}_rebuilt;
      alter index envdata.${name}_pkey rename to ${name}_rebuilt_pkey;
      ${name === 'pollen_species_snapshot' ? '' : `alter index envdata.${name}_valid rename to ${name}_rebuilt_valid;`}
      create table envdata.${name}
        (like envdata.${name}_rebuilt including defaults including constraints) ${partitionBy};
      ${keys}
      ${
        partitionBy === ''
          ? ''
          : `select envdata.ensure_month_partitions('envdata.${name}', m, m) from (
          select distinct date_trunc('month', fetched_at at time zone 'UTC')::date as m
          from envdata.${name}_rebuilt) months;`
      }
      insert into envdata.${name} select * from envdata.${name}_rebuilt;
      drop table envdata.${name}_rebuilt;`,
      )
      .execute(db);
  }

  await sql`
    do $do$
    declare
      v record;
      statement text;
    begin
      for v in select * from pg_temp.snapshot_views order by depth loop
        execute format('create view %s%s as %s', v.name,
          case when v.reloptions is null then ''
            else format(' with (%s)', array_to_string(v.reloptions, ', ')) end,
          v.definition);
        if v.comment is not null then
          execute format('comment on view %s is %L', v.name, v.comment);
        end if;
        foreach statement in array coalesce(v.column_comments, '{}') loop
          execute statement;
        end loop;
        foreach statement in array coalesce(v.grants, '{}') loop
          execute statement;
        end loop;
      end loop;
    end
    $do$;
    drop table pg_temp.snapshot_views;
  `.execute(db);
}

/**
 * The snapshot tables range-partitioned by UTC month of `fetched_at`, so ENVDATA_SNAPSHOT_RETENTION
 * drops old snapshots a month at a time (`drop table` of a partition: no delete, no bloat, no
 * vacuum). Their primary keys already start `(location_id, product, fetched_at, …)`, which holds
 * the partition key as a partitioned table's keys must: keys, indexes and checks are the same.
 *
 * - `envdata.ensure_month_partitions(parent, first_month, last_month)` creates the monthly
 *   partitions, as `ensure_year_partitions` (0002) creates the facts' years: the app calls it
 *   before it stores a snapshot. None exist ahead: a month no snapshot was fetched in has none.
 * - Each table is rebuilt partitioned and its rows moved, in this one transaction. The views
 *   that read the tables (0005's `analytics.forecast_accuracy`, 0033's forecast and latest
 *   views, and any view over those: found in `pg_depend`, not listed here) are dropped first and
 *   created again after from their own definitions, with their comments, column comments and
 *   grants (`envdata_bi`).
 * - `envdata.snapshot_retention.settled_before`: the forecast-accuracy rollup's local days that
 *   start before it were summed from snapshots since dropped, so `refresh_daily_rollups()` (0034's
 *   body, which this replaces) leaves them as they are instead of summing them again from what
 *   is left. A landing that marks such a day dirty (a backfill over old hours) then refreshes its
 *   daily fact rollups only. No row: nothing dropped yet, every day is refreshed as before.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function envdata.ensure_month_partitions(parent regclass, first_month date,
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
        -- One creator at a time across every process (the lock of ensure_year_partitions). Asked
        -- again after it with a query, whose fresh snapshot sees a partition another process
        -- created meanwhile: to_regclass reads the catalog cache, which an advisory lock does not
        -- bring up to date.
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
  `.execute(db);
  await rebuildTables(db, 'partition by range (fetched_at)');
  await sql
    .raw(
      `
    create table envdata.snapshot_retention (
      singleton boolean primary key default true check (singleton),
      settled_before timestamptz not null
    );
    comment on table envdata.snapshot_retention is
      'Forecast-accuracy rollup days starting before settled_before were summed from snapshots since dropped (ENVDATA_SNAPSHOT_RETENTION): refresh_daily_rollups() no longer recomputes them.';
    ${refreshFunction(CUT_SETTLED_DAYS)}`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw(refreshFunction('')).execute(db);
  await sql`drop table envdata.snapshot_retention`.execute(db);
  await rebuildTables(db, '');
  await sql`drop function envdata.ensure_month_partitions(regclass, date, date)`.execute(db);
}
