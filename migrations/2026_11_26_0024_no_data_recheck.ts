import { sql, type Kysely } from 'kysely';

/**
 * "Data not available!" is asked again, and a location the service has no data for is bounded.
 *
 * - Hours answered "no data" become holes of cause `no_data` with the time of the answer, so a
 *   later backfill asks them again after ENVDATA_NO_DATA_RECHECK, each range on its own clock.
 *   `coverage.no_data` keeps every hour ever answered so (what closes a run); the hole is the
 *   latest answer. Hours answered before this migration are dated by their coverage row's
 *   `updated_at`, the last time anything of that location and dataset was recorded.
 * - `analytics.coverage.gaps` held `{(,)}`, an unbounded range, where nothing landed (the gap
 *   between a NULL first and last hour): it is empty then. `no_data_ranges` reads the latest
 *   answers (the holes), and `known_empty` says that nothing landed and the service answered
 *   "no data" or "not covered" for what was asked.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.coverage_hole drop constraint coverage_hole_cause_check,
      add constraint coverage_hole_cause_check
        check (cause in ('missing_upstream', 'quarantined', 'not_covered', 'no_data'));

    insert into envdata.coverage_hole (location_id, dataset, hours, cause, run_id, checked_at)
    select c.location_id, c.dataset, part, 'no_data', null, c.updated_at
    from envdata.coverage c
    cross join lateral unnest(c.no_data - c.landed - coalesce((
      select range_agg(h.hours) from envdata.coverage_hole h
      where h.location_id = c.location_id and h.dataset = c.dataset), '{}')) as part;

    create or replace view analytics.coverage as
    select c.location_id, l.name as location_name, c.dataset::text as dataset,
      lower(c.landed) as first_hour,
      upper(c.landed) - interval '1 hour' as last_ingested_hour,
      c.landed as covered_ranges,
      case when isempty(c.landed) then '{}'::tstzmultirange
        else tstzmultirange(tstzrange(lower(c.landed), upper(c.landed))) - c.landed end as gaps,
      coalesce(h.missing_upstream, '{}') - c.landed as missing_upstream_ranges,
      coalesce(h.quarantined, '{}') - c.landed as quarantined_ranges,
      coalesce(h.not_covered, '{}') - c.landed as not_covered_ranges,
      coalesce(h.no_data, '{}') - c.landed as no_data_ranges,
      isempty(c.landed) and not isempty(coalesce(h.no_data, '{}') + coalesce(h.not_covered, '{}'))
        as known_empty
    from envdata.coverage c
    join envdata.location l using (location_id)
    left join lateral (
      select
        range_agg(hours) filter (where cause = 'missing_upstream') as missing_upstream,
        range_agg(hours) filter (where cause = 'quarantined') as quarantined,
        range_agg(hours) filter (where cause = 'not_covered') as not_covered,
        range_agg(hours) filter (where cause = 'no_data') as no_data
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
    grant select on analytics.coverage to envdata_bi;
    delete from envdata.coverage_hole where cause = 'no_data';
    alter table envdata.coverage_hole drop constraint coverage_hole_cause_check,
      add constraint coverage_hole_cause_check
        check (cause in ('missing_upstream', 'quarantined', 'not_covered'));
  `.execute(db);
}
