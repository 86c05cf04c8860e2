import { sql, type Kysely } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import { withoutJit } from '../ledger/without-jit.js';

/**
 * The state of one cell (a location's month or year) of the console's coverage grid, one
 * letter each in `CoverageGridRow.cells`:
 * - `c` covered: every hour of it landed (or the service has no data, or does not cover it);
 * - `p` partially covered: some hours landed, the rest was never asked for (yet);
 * - `m` missing upstream: the service never sent some of its hours (`coverage_hole`);
 * - `q` quarantined: some of its hours were set aside as invalid or conflicting;
 * - `n` not covered: the service does not cover the location for the dataset;
 * - `x` not fetched: a cancelled run asked for some of its hours, and they have not landed since
 *   (`envdata cancel` drops what a run had not fetched: a hole in the history, not a lag);
 * - `.` not planned: nothing landed and nothing was asked for.
 * A hole wins over coverage: a month with one missing hour is `m`, so holes show.
 */
export const COVERAGE_STATES = {
  c: 'covered',
  p: 'partially covered',
  m: 'missing upstream',
  q: 'quarantined',
  n: 'not covered by the service',
  x: 'not fetched (a cancelled run)',
  '.': 'not planned',
} as const;

export type CoverageBucket = 'month' | 'year';

export interface CoverageGridRequest {
  readonly dataset: Dataset;
  readonly bucket: CoverageBucket;
  /** First and last year shown; default the years of what landed or was found missing. */
  readonly fromYear?: number | undefined;
  readonly toYear?: number | undefined;
  /** 1-based page of active locations, by id. */
  readonly page: number;
  readonly pageSize: number;
}

export interface CoverageGridRow {
  readonly locationId: number;
  readonly name: string;
  /** One letter of `COVERAGE_STATES` per bucket, in order. */
  readonly cells: string;
}

export interface CoverageGrid {
  readonly dataset: Dataset;
  readonly bucket: CoverageBucket;
  readonly fromYear: number;
  readonly toYear: number;
  /** The first instant of each bucket (ISO-8601, UTC). */
  readonly buckets: readonly string[];
  readonly page: number;
  readonly pageSize: number;
  /** Active locations in all. */
  readonly locations: number;
  readonly rows: readonly CoverageGridRow[];
}

/**
 * A page of the coverage grid: active locations × months (or years) of one dataset, each cell's
 * state computed in Postgres from the coverage multiranges (`envdata.coverage`) and the holes
 * (`envdata.coverage_hole`, less what landed since, as `analytics.coverage` does). Only the
 * letters travel: per location, its multiranges are built once, then each cell is a few
 * containment and overlap tests on them (binary searches), never a walk over hours.
 */
export async function coverageGrid(
  db: Kysely<Database>,
  request: CoverageGridRequest,
): Promise<CoverageGrid> {
  const { dataset, bucket, page, pageSize } = request;
  const extent = await coverageYears(db, dataset);
  const thisYear = new Date().getUTCFullYear();
  const fromYear = request.fromYear ?? extent?.from ?? thisYear;
  const toYear = Math.max(fromYear, request.toYear ?? extent?.to ?? thisYear);
  const step = bucket === 'month' ? sql`interval '1 month'` : sql`interval '1 year'`;
  const from = `${fromYear}-01-01`;
  const to = `${toYear + 1}-01-01`;
  const offset = (page - 1) * pageSize;
  const { rows } = await withoutJit(db, (trx) =>
    sql<{
      location_id: number;
      name: string;
      cells: string;
      total: number;
    }>`
    with locs as (
      select location_id, name, count(*) over () as total
      from envdata.location where retired_at is null
      order by location_id limit ${pageSize} offset ${offset}
    ),
    buckets as materialized (
      select (b at time zone 'UTC') as b_from, ((b + ${step}) at time zone 'UTC') as b_to,
        (row_number() over (order by b))::int as idx
      from generate_series(${from}::timestamp, ${to}::timestamp - ${step}, ${step}) b
    ),
    sets as materialized (
      select l.location_id,
        coalesce(c.landed, '{}') + coalesce(c.no_data, '{}') as covered,
        coalesce(h.missing, '{}') - coalesce(c.landed, '{}') as missing,
        coalesce(h.quarantined, '{}') - coalesce(c.landed, '{}') as quarantined,
        coalesce(h.not_covered, '{}') - coalesce(c.landed, '{}') as not_covered,
        coalesce(c.landed, '{}') + coalesce(c.no_data, '{}') + coalesce(h.not_covered, '{}')
          as settled,
        coalesce(d.asked, '{}') - coalesce(c.landed, '{}') - coalesce(c.no_data, '{}')
          - coalesce(h.not_covered, '{}') as dropped
      from locs l
      left join envdata.coverage c on c.location_id = l.location_id and c.dataset = ${dataset}
      left join lateral (
        select range_agg(x.hours) filter (where x.cause = 'missing_upstream') as missing,
          range_agg(x.hours) filter (where x.cause = 'quarantined') as quarantined,
          range_agg(x.hours) filter (where x.cause = 'not_covered') as not_covered
        from envdata.coverage_hole x
        where x.location_id = l.location_id and x.dataset = ${dataset}
      ) h on true
      left join lateral (
        -- what cancelled runs asked for at the location (their gaps outlive the cancel)
        select range_agg(tstzrange(g.gap_from, g.gap_to)) as asked
        from envdata.run r
        join envdata.run_gap g on g.run_id = r.run_id
        where r.status = 'cancelled' and g.location_id = l.location_id and g.dataset = ${dataset}
      ) d on true
    )
    -- Per cell a few multirange tests (each a binary search over the location's ranges), on
    -- the bucket clipped to the last complete hour: nothing is expected of the future.
    select l.location_id, l.name, l.total::int as total,
      string_agg(case
        when b.b_from >= date_trunc('hour', now()) then '.'
        when s.missing && b.span then 'm'
        when s.quarantined && b.span then 'q'
        when s.dropped && b.span then 'x'
        when s.covered && b.span and s.settled @> b.span then 'c'
        when s.covered && b.span then 'p'
        when s.not_covered && b.span then 'n'
        else '.' end, '' order by b.idx) as cells
    from locs l
    join sets s using (location_id)
    cross join (
      select idx, b_from,
        tstzrange(b_from, greatest(b_from, least(b_to, date_trunc('hour', now())))) as span
      from buckets
    ) b
    group by l.location_id, l.name, l.total
    order by l.location_id`.execute(trx),
  );
  const buckets: string[] = [];
  for (let year = fromYear; year <= toYear; year++) {
    if (bucket === 'year') buckets.push(`${year}-01-01T00:00:00.000Z`);
    else for (let m = 0; m < 12; m++) buckets.push(new Date(Date.UTC(year, m, 1)).toISOString());
  }
  const locations = rows[0]?.total ?? (await countActiveLocations(db));
  return {
    dataset,
    bucket,
    fromYear,
    toYear,
    buckets,
    page,
    pageSize,
    locations,
    rows: rows.map((r) => ({ locationId: r.location_id, name: r.name, cells: r.cells })),
  };
}

/** The first and last year of what landed or was found missing for `dataset`; none: nothing. */
async function coverageYears(
  db: Kysely<Database>,
  dataset: Dataset,
): Promise<{ from: number; to: number } | undefined> {
  const { rows } = await sql<{ first: Date | null; last: Date | null }>`
    select
      least(
        (select min(lower(landed + no_data)) from envdata.coverage where dataset = ${dataset}),
        (select min(lower(hours)) from envdata.coverage_hole where dataset = ${dataset})
      ) as first,
      greatest(
        (select max(upper(landed + no_data)) from envdata.coverage where dataset = ${dataset}),
        (select max(upper(hours)) from envdata.coverage_hole where dataset = ${dataset})
      ) as last`.execute(db);
  const { first, last } = rows[0] ?? {};
  if (!first || !last) return undefined;
  // `last` is an exclusive end: an end on New Year's midnight belongs to the year before.
  return {
    from: first.getUTCFullYear(),
    to: new Date(last.getTime() - 1).getUTCFullYear(),
  };
}

async function countActiveLocations(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('location')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('retired_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
