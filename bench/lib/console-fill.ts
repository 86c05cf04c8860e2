import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/warehouse/schema.js';

/** What `fillConsoleLedger` wrote. */
export interface ConsoleFill {
  readonly locations: number;
  readonly years: number;
  readonly holes: number;
  readonly runs: number;
  readonly chunks: number;
}

/**
 * Fills a migrated warehouse, in SQL alone, with what the console reads at the scale of a large
 * installation: `locations` locations × `years` years (to the end of 2025) of pollen and weather
 * coverage, with holes of every kind — each location has a dozen hours missing upstream spread
 * over the years, every fifth a quarantined day, every seventh a year never planned (partial),
 * every eleventh no pollen at all (not covered by the service) — and `runs` runs of
 * `chunksPerRun` chunks each, the newest still running with chunks in every state and windows
 * not yet dispatched.
 */
export async function fillConsoleLedger(
  db: Kysely<Database>,
  options: { locations: number; years: number; runs: number; chunksPerRun: number },
): Promise<ConsoleFill> {
  const { locations, years, runs, chunksPerRun } = options;
  const first = `${2026 - years}-01-01`;
  await sql`
    insert into envdata.location (name, name_key, lat, lng, country_code, timezone, pollen_region, registered_by)
    select format('Site %s', lpad(i::text, 4, '0')), format('site %s', lpad(i::text, 4, '0')), -60 + (i / 50) * 5.5 + (i % 7) * 0.01,
      -175 + (i % 50) * 7, 'DE', 'UTC', 'europe', 'coordinates'
    from generate_series(1, ${locations}) i`.execute(db);
  // Holes: 12 six-hour gaps missing upstream per location and dataset, at deterministic places.
  await sql`
    insert into envdata.coverage_hole (location_id, dataset, hours, cause, checked_at)
    select l.location_id, d.dataset,
      tstzrange(t, t + interval '6 hours'), 'missing_upstream', now()
    from envdata.location l
    cross join unnest(enum_range(null::envdata.dataset)) d(dataset)
    cross join generate_series(1, 12) k
    cross join lateral (select ${first}::timestamptz
      + make_interval(hours => (abs(hashint4(l.location_id * 31 + k)) % (${years} * 8760 / 6)) * 6) as t) x
    union all
    select l.location_id, 'weather', tstzrange(t, t + interval '1 day'), 'quarantined', now()
    from envdata.location l
    cross join lateral (select ${first}::timestamptz
      + make_interval(days => abs(hashint4(l.location_id)) % (${years} * 365)) as t) x
    where l.location_id % 5 = 0
    union all
    select l.location_id, 'pollen', tstzrange(${first}::timestamptz, '2026-01-01'), 'not_covered', now()
    from envdata.location l where l.location_id % 11 = 0`.execute(db);
  await sql`
    insert into envdata.coverage (location_id, dataset, landed)
    select l.location_id, d.dataset,
      tstzmultirange(tstzrange(${first}::timestamptz, '2026-01-01'))
        - coalesce((select range_agg(h.hours) from envdata.coverage_hole h
            where h.location_id = l.location_id and h.dataset = d.dataset), '{}')
        - case when l.location_id % 7 = 0
            then tstzmultirange(tstzrange(${first}::timestamptz + interval '3 years',
              ${first}::timestamptz + interval '4 years'))
            else '{}' end
    from envdata.location l
    cross join unnest(enum_range(null::envdata.dataset)) d(dataset)`.execute(db);
  await sql`
    insert into envdata.run (kind, status, created_at, finished_at, folded_chunks, folded_rows,
      folded_calls)
    select 'backfill', case when r = ${runs} then 'running' else 'done' end,
      now() - make_interval(hours => ${runs} - r), case when r < ${runs} then now() end,
      100000, 100000 * 48, 100000
    from generate_series(1, ${runs}) r`.execute(db);
  await sql`
    insert into envdata.chunk (run_id, dataset, location_id, window_from, window_to, status,
      attempts, calls, rows_landed, missing_hours, error_code, error_message, started_at,
      finished_at)
    select r.run_id, 'weather', 1 + (c % ${locations}),
      ${first}::timestamptz + make_interval(hours => 48 * (c / ${locations})),
      ${first}::timestamptz + make_interval(hours => 48 * (c / ${locations}) + 48),
      s.status::envdata.chunk_status, 1, 1, case when s.status = 'done' then 48 else 0 end,
      case when s.status = 'done' and c % 97 = 0 then 6 else 0 end,
      case when s.status = 'failed' then 'SERVER_ERROR' end,
      case when s.status = 'failed' then 'the service failed at 503' end,
      now() - interval '10 minutes', case when s.status in ('done', 'failed')
        then now() - make_interval(secs => c % 600) end
    from envdata.run r
    cross join generate_series(1, ${chunksPerRun}) c
    cross join lateral (select case
      when r.status = 'done' then 'done'
      when c % 50 = 0 then 'failed'
      when c % 10 = 0 then 'running'
      when c % 3 = 0 then 'queued'
      else 'done' end as status) s
    -- As the planner materializes them: a run's chunks together.
    order by r.run_id, c`.execute(db);
  const running = await sql<{ run_id: number }>`
    select run_id from envdata.run where status = 'running'`.execute(db);
  for (const { run_id } of running.rows) {
    await sql`
      insert into envdata.run_gap (run_id, dataset, location_id, gap_from, gap_to, next_from,
        window_hours)
      select ${run_id}, 'pollen', location_id, ${first}::timestamptz, '2026-01-01',
        ${first}::timestamptz, 48
      from envdata.location`.execute(db);
  }
  await sql`analyze`.execute(db);
  const { rows } = await sql<{ holes: number; chunks: number }>`
    select (select count(*)::int from envdata.coverage_hole) as holes,
      (select count(*)::int from envdata.chunk) as chunks`.execute(db);
  return { locations, years, holes: rows[0]!.holes, runs, chunks: rows[0]!.chunks };
}
