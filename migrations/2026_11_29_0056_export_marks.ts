import { sql, type Kysely } from 'kysely';

/**
 * What changed since a Parquet export (issue 42, docs/export.md):
 * - `envdata.export_mark`: one row per transaction and partition (dataset, UTC year and month)
 *   its statements inserted, updated or deleted rows of: written by the facts' writer for the
 *   rows it inserts, and by statement-level triggers with transition tables for the rest (the
 *   facts' updates and deletes, the daily rollups, the locations). Insert-only, keyed by
 *   the writing transaction (`xid`): concurrent landings never wait on each other's marks. An
 *   export compares a mark's transaction with the snapshot it exported a partition at
 *   (`pg_visible_in_snapshot`): exact whatever the commit order, unlike answer ids (handed out
 *   in blocks) or landed_at (a transaction's start). It deletes the marks its snapshot saw.
 * - `envdata.export_run`: the last exports, for `envdata status` and the metric.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.export_mark (
      dataset text not null,
      year smallint not null,
      month smallint not null,
      xid xid8 not null default pg_current_xact_id(),
      marked_at timestamptz not null default now(),
      primary key (dataset, year, month, xid)
    );
    comment on table envdata.export_mark is
      'Partitions (dataset, UTC year, month) a transaction changed, for the incremental Parquet export; deleted by the export whose snapshot saw them.';

    create function envdata.export_mark_hours() returns trigger language plpgsql as $$
    begin
      insert into envdata.export_mark (dataset, year, month)
      select tg_argv[0], extract(year from m)::smallint, extract(month from m)::smallint
        from (select distinct date_trunc('month', observed_at at time zone 'UTC') as m from changed) c
      on conflict do nothing;
      return null;
    end $$;

    create function envdata.export_mark_days() returns trigger language plpgsql as $$
    begin
      insert into envdata.export_mark (dataset, year, month)
      select tg_argv[0], extract(year from m)::smallint, extract(month from m)::smallint
        from (select distinct date_trunc('month', local_date) as m from changed) c
      on conflict do nothing;
      return null;
    end $$;

    create function envdata.export_mark_locations() returns trigger language plpgsql as $$
    begin
      insert into envdata.export_mark (dataset, year, month) values ('locations', 0, 0)
      on conflict do nothing;
      return null;
    end $$;

    create table envdata.export_run (
      export_id bigint generated always as identity primary key,
      target text not null,
      started_at timestamptz not null,
      finished_at timestamptz not null,
      snapshot text not null,
      partitions_written integer not null,
      rows_written bigint not null,
      bytes_written bigint not null
    );
    comment on table envdata.export_run is
      'The Parquet exports that finished (envdata export parquet): their directory, ledger position (snapshot) and what they wrote.';
  `.execute(db);
  // Inserts of facts are marked by their writer (src/warehouse/export-marks.ts), in the same
  // transaction: a transition table of INSERT would copy every row landed (about a fifth of a
  // fresh landing's time in bench:upsert). Updates (revisions) and deletes are marked here.
  for (const [table, dataset, fn, events] of [
    ['weather_hourly', 'weather_hourly', 'export_mark_hours', ['update', 'delete']],
    ['pollen_hourly', 'pollen_hourly', 'export_mark_hours', ['update', 'delete']],
    ['pollen_species_hourly', 'pollen_species_hourly', 'export_mark_hours', ['update', 'delete']],
    ['weather_daily_rollup', 'weather_daily', 'export_mark_days', ['insert', 'update', 'delete']],
    ['pollen_daily_rollup', 'pollen_daily', 'export_mark_days', ['insert', 'update', 'delete']],
  ] as const) {
    for (const event of events) {
      const transition = event === 'delete' ? 'old' : 'new';
      await sql
        .raw(
          `create trigger export_mark_${event} after ${event} on envdata.${table}
             referencing ${transition} table as changed
             for each statement execute function envdata.${fn}('${dataset}')`,
        )
        .execute(db);
    }
  }
  await sql`
    create trigger export_mark after insert or update or delete on envdata.location
      for each statement execute function envdata.export_mark_locations();
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger export_mark on envdata.location`.execute(db);
  for (const table of ['weather_hourly', 'pollen_hourly', 'pollen_species_hourly']) {
    for (const event of ['update', 'delete']) {
      await sql.raw(`drop trigger export_mark_${event} on envdata.${table}`).execute(db);
    }
  }
  for (const table of ['weather_daily_rollup', 'pollen_daily_rollup']) {
    for (const event of ['insert', 'update', 'delete']) {
      await sql.raw(`drop trigger export_mark_${event} on envdata.${table}`).execute(db);
    }
  }
  await sql`
    drop table envdata.export_run;
    drop function envdata.export_mark_locations();
    drop function envdata.export_mark_days();
    drop function envdata.export_mark_hours();
    drop table envdata.export_mark;
  `.execute(db);
}
