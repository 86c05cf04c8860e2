import { sql, type Kysely } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';

export interface Freshness {
  readonly locationId: number;
  readonly name: string;
  readonly dataset: Dataset;
  /** The last hour whose rows landed; `null` when nothing was ingested. */
  readonly lastHour: Date | null;
  /**
   * Hours from the end of that hour to `now` — for a known-empty pair, from the end of the last
   * hour the service answered "no data" or "not covered"; `null` when nothing is known.
   */
  readonly lagHours: number | null;
  /**
   * Known empty: nothing landed, and every hour asked was answered "Data not available!" or "not
   * covered" (no hole of another cause). Such a pair is not stale while the service keeps being
   * asked (its answers lag no more than `maxLagHours`), and its "no data" hours are asked again
   * after ENVDATA_NO_DATA_RECHECK.
   */
  readonly knownEmpty: boolean;
  readonly stale: boolean;
}

/**
 * Per active location and dataset: the last hour that landed (from the coverage), the lag and
 * whether it is stale. Retired locations are left out: nobody keeps them fresh.
 *
 * The one definition of fresh (issue 38): `envdata status`, the console and
 * `analytics.dataset_freshness` (its `complete_through` and `lag_hours`, hence dbt's freshness)
 * count the same hour and lag; a hole before the last landed hour is a hole in the history
 * (that view's `history_*` columns), not a lag. Change one, change the migration's view too.
 */
export async function readFreshness(
  db: Kysely<Database>,
  maxLagHours: number,
  now: Date = new Date(),
): Promise<Freshness[]> {
  const { rows } = await sql<{
    location_id: number;
    name: string;
    dataset: Dataset;
    last_to: Date | null;
    answered_to: Date | null;
    other_holes: boolean;
  }>`
    select l.location_id, l.name, d.dataset, upper(c.landed) as last_to, h.answered_to,
      coalesce(h.other_holes, false) as other_holes
    from envdata.location l
    cross join unnest(enum_range(null::envdata.dataset)) as d(dataset)
    left join envdata.coverage c on c.location_id = l.location_id and c.dataset = d.dataset
    left join lateral (
      select max(upper(x.hours)) filter (where x.cause in ('no_data', 'not_covered')) as answered_to,
        bool_or(x.cause not in ('no_data', 'not_covered')) as other_holes
      from envdata.coverage_hole x
      where x.location_id = l.location_id and x.dataset = d.dataset
    ) h on true
    where l.retired_at is null
    order by l.location_id, d.dataset`.execute(db);
  return rows.map((r) => {
    const knownEmpty = r.last_to === null && r.answered_to !== null && !r.other_holes;
    const end = knownEmpty ? r.answered_to : r.last_to;
    const lagHours = end === null ? null : Math.max(0, (now.getTime() - end.getTime()) / 3_600_000);
    return {
      locationId: r.location_id,
      name: r.name,
      dataset: r.dataset,
      lastHour: r.last_to === null ? null : new Date(r.last_to.getTime() - 3_600_000),
      lagHours,
      knownEmpty,
      stale: lagHours === null || lagHours > maxLagHours,
    };
  });
}
