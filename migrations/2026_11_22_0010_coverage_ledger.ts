import { sql, type Kysely } from 'kysely';

/**
 * Coverage is what landed. Per location and dataset the ledger keeps the hours whose rows are in
 * the facts (`landed`) and the hours the service answered with its documented "Data not
 * available!" (`no_data`) as multiranges — a finished 30-year plan is a handful of ranges, not
 * millions of chunk rows — and, as rows of their own, the holes: hours missing upstream after
 * the re-fetch policy, hours whose records were quarantined, hours the service said it does not
 * cover (404). Planning, sync, status, `analytics.coverage` and the close of a run read these.
 *
 * Chunks become per run (a sync re-reading a window never takes the window's chunk away from the
 * run that landed it) and carry their hours by cause; done chunks are folded into their run's
 * totals (`run.folded_*`) and deleted, so raw payloads and quarantine entries no longer depend on
 * chunk rows: they carry their own location, dataset and window.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.coverage (
      location_id integer not null references envdata.location on delete cascade,
      dataset envdata.dataset not null,
      landed tstzmultirange not null default '{}',
      no_data tstzmultirange not null default '{}',
      updated_at timestamptz not null default now(),
      primary key (location_id, dataset)
    );

    create table envdata.coverage_hole (
      location_id integer not null references envdata.location on delete cascade,
      dataset envdata.dataset not null,
      hours tstzrange not null check (not isempty(hours)),
      cause text not null check (cause in ('missing_upstream', 'quarantined', 'not_covered')),
      run_id integer references envdata.run on delete set null,
      checked_at timestamptz not null default now()
    );
    create index coverage_hole_key on envdata.coverage_hole (location_id, dataset);
    create index coverage_hole_run on envdata.coverage_hole (run_id);

    -- What landed before this migration: the hours that have rows (one scan of each fact table),
    -- the windows answered "no data", and the windows answered 404.
    insert into envdata.coverage (location_id, dataset, landed)
    select location_id, 'weather', range_agg(tstzrange(observed_at, observed_at + interval '1 hour'))
    from envdata.weather_hourly group by location_id;
    insert into envdata.coverage (location_id, dataset, landed)
    select location_id, 'pollen', range_agg(tstzrange(observed_at, observed_at + interval '1 hour'))
    from envdata.pollen_hourly group by location_id;
    insert into envdata.coverage as c (location_id, dataset, no_data)
    select location_id, dataset, range_agg(tstzrange(window_from, window_to))
    from envdata.chunk where status = 'done' and outcome = 'no_data'
    group by location_id, dataset
    on conflict (location_id, dataset) do update set no_data = excluded.no_data;
    insert into envdata.coverage_hole (location_id, dataset, hours, cause, run_id, checked_at)
    select location_id, dataset, tstzrange(window_from, window_to), 'not_covered', run_id,
      coalesce(finished_at, now())
    from envdata.chunk where status = 'done' and outcome = 'not_covered';

    alter table envdata.chunk
      drop constraint if exists chunk_dataset_location_id_window_from_window_to_key,
      drop constraint if exists chunk_parent_chunk_id_fkey,
      add column refetches integer not null default 0,
      add column missing_hours integer not null default 0,
      add column quarantined_hours integer not null default 0,
      add column not_covered_hours integer not null default 0,
      add column no_data_hours integer not null default 0;
    create unique index chunk_run_window
      on envdata.chunk (run_id, dataset, location_id, window_from, window_to);
    drop index if exists envdata.chunk_done_coverage;

    alter table envdata.run
      add column folded_chunks integer not null default 0,
      add column folded_rows bigint not null default 0,
      add column folded_calls bigint not null default 0,
      add column folded_records_quarantined bigint not null default 0,
      add column folded_missing_hours bigint not null default 0,
      add column folded_quarantined_hours bigint not null default 0,
      add column folded_not_covered_hours bigint not null default 0,
      add column folded_no_data_hours bigint not null default 0;

    alter table envdata.raw_payload
      drop constraint if exists raw_payload_chunk_id_fkey,
      add column run_id integer references envdata.run on delete set null,
      add column location_id integer references envdata.location on delete cascade,
      add column dataset envdata.dataset,
      add column window_from timestamptz,
      add column window_to timestamptz;
    update envdata.raw_payload p set run_id = c.run_id, location_id = c.location_id,
      dataset = c.dataset, window_from = c.window_from, window_to = c.window_to
    from envdata.chunk c where c.chunk_id = p.chunk_id;
    delete from envdata.raw_payload where location_id is null;
    alter table envdata.raw_payload
      alter column location_id set not null,
      alter column dataset set not null,
      alter column window_from set not null,
      alter column window_to set not null;
    create index raw_payload_replay on envdata.raw_payload (dataset, location_id, window_from);

    alter table envdata.quarantine
      drop constraint if exists quarantine_chunk_id_fkey,
      add column run_id integer references envdata.run on delete set null,
      add column observed_at timestamptz;
    update envdata.quarantine q set run_id = c.run_id from envdata.chunk c where c.chunk_id = q.chunk_id;

    -- Same columns as before (covered_ranges: exactly the hours whose rows are in the facts),
    -- and beside them the hours that are not there, by cause.
    create or replace view analytics.coverage as
    select c.location_id, l.name as location_name, c.dataset::text as dataset,
      lower(c.landed) as first_hour,
      upper(c.landed) - interval '1 hour' as last_ingested_hour,
      c.landed as covered_ranges,
      tstzmultirange(tstzrange(lower(c.landed), upper(c.landed))) - c.landed as gaps,
      coalesce(h.missing_upstream, '{}') - c.landed as missing_upstream_ranges,
      coalesce(h.quarantined, '{}') - c.landed as quarantined_ranges,
      coalesce(h.not_covered, '{}') - c.landed as not_covered_ranges,
      c.no_data - c.landed as no_data_ranges
    from envdata.coverage c
    join envdata.location l using (location_id)
    left join lateral (
      select
        range_agg(hours) filter (where cause = 'missing_upstream') as missing_upstream,
        range_agg(hours) filter (where cause = 'quarantined') as quarantined,
        range_agg(hours) filter (where cause = 'not_covered') as not_covered
      from envdata.coverage_hole x
      where x.location_id = c.location_id and x.dataset = c.dataset
    ) h on true;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  // A view cannot lose columns through create or replace: drop it, recreate it, grant it again.
  await sql`
    drop view analytics.coverage;
    create view analytics.coverage as
    with covered as (
      select location_id, dataset, range_agg(tstzrange(window_from, window_to)) as ranges
      from envdata.chunk where status = 'done'
      group by location_id, dataset
    )
    select c.location_id, l.name as location_name, c.dataset::text as dataset,
      lower(c.ranges) as first_hour,
      upper(c.ranges) - interval '1 hour' as last_ingested_hour,
      c.ranges as covered_ranges,
      tstzmultirange(tstzrange(lower(c.ranges), upper(c.ranges))) - c.ranges as gaps
    from covered c join envdata.location l using (location_id);
    grant select on analytics.coverage to envdata_bi;
  `.execute(db);
  await sql`
    alter table envdata.quarantine drop column if exists run_id, drop column if exists observed_at;
    drop index if exists envdata.raw_payload_replay;
    alter table envdata.raw_payload drop column if exists run_id, drop column if exists location_id,
      drop column if exists dataset, drop column if exists window_from, drop column if exists window_to;
    alter table envdata.run drop column if exists folded_chunks, drop column if exists folded_rows,
      drop column if exists folded_calls, drop column if exists folded_records_quarantined,
      drop column if exists folded_missing_hours, drop column if exists folded_quarantined_hours,
      drop column if exists folded_not_covered_hours, drop column if exists folded_no_data_hours;
    drop index if exists envdata.chunk_run_window;
    alter table envdata.chunk drop column if exists refetches, drop column if exists missing_hours,
      drop column if exists quarantined_hours, drop column if exists not_covered_hours,
      drop column if exists no_data_hours;
    drop table if exists envdata.coverage_hole, envdata.coverage;
  `.execute(db);
}
