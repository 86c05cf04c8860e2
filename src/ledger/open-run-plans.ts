import { sql, type Kysely } from 'kysely';
import type { Dataset, Window } from '../types.js';
import type { Database, RunStatus } from '../warehouse/schema.js';

/** Hours an unfinished run will still fetch for one dataset and location. */
export interface OpenRunPlan {
  readonly runId: number;
  readonly status: RunStatus;
  readonly dataset: Dataset;
  readonly locationId: number;
  /** Disjoint, in order, clipped to the range asked about. */
  readonly hours: readonly Window[];
}

/**
 * What unfinished runs (planning, running or paused; a rebuild fetches nothing) will still fetch
 * of `[from, to)` for these datasets and locations: the windows of their gaps not yet turned
 * into chunks, and their chunks waiting or in flight. Done chunks landed (the coverage says so);
 * failed ones will not be fetched again by their run.
 */
export async function openRunPlans(
  db: Kysely<Database>,
  request: {
    readonly datasets: readonly Dataset[];
    readonly locationIds: readonly number[];
    readonly from: Date;
    readonly to: Date;
  },
): Promise<OpenRunPlan[]> {
  if (request.datasets.length === 0 || request.locationIds.length === 0) return [];
  const range = sql`tstzrange(${request.from}, ${request.to})`;
  const { rows } = await sql<{
    run_id: number;
    status: RunStatus;
    dataset: Dataset;
    location_id: number;
    hours: { from: string; to: string }[];
  }>`
    with open as (
      select g.run_id, g.dataset, g.location_id, tstzrange(g.next_from, g.gap_to) as hours
      from envdata.run r join envdata.run_gap g using (run_id)
      where r.status in ('planning', 'running', 'paused') and r.kind <> 'rebuild'
        and g.next_from < g.gap_to
      union all
      select k.run_id, k.dataset, k.location_id, tstzrange(k.window_from, k.window_to)
      from envdata.run r join envdata.chunk k using (run_id)
      where r.status in ('planning', 'running', 'paused') and r.kind <> 'rebuild'
        and k.status in ('pending', 'queued', 'running')
    )
    select o.run_id, r.status, o.dataset, o.location_id,
      (select json_agg(json_build_object('from', lower(p), 'to', upper(p)) order by p)
        from unnest(range_agg(o.hours * ${range})) as p) as hours
    from open o join envdata.run r using (run_id)
    where o.dataset = any(${[...request.datasets]}::envdata.dataset[])
      and o.location_id = any(${[...request.locationIds]}::int[])
      and o.hours && ${range}
    group by o.run_id, r.status, o.dataset, o.location_id
    order by o.run_id, o.dataset, o.location_id`.execute(db);
  return rows.map((r) => ({
    runId: r.run_id,
    status: r.status,
    dataset: r.dataset,
    locationId: r.location_id,
    hours: r.hours.map((h) => ({ from: new Date(h.from), to: new Date(h.to) })),
  }));
}
