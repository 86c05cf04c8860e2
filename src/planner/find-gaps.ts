import { sql, type Kysely } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import { HISTORY_STARTS } from './dataset-coverage.js';
import { lastCompleteHourEnd } from './tile-windows.js';

export interface Gap {
  readonly dataset: Dataset;
  readonly locationId: number;
  readonly from: Date;
  readonly to: Date;
}

/**
 * What is still to ingest: for each dataset and location, `[from, to)` clipped to the dataset's
 * history coverage and to the last complete hour, minus every interval the ledger holds as done
 * (whatever windows it was done in). One query for all locations.
 */
export async function findGaps(
  db: Kysely<Database>,
  request: {
    readonly datasets: readonly Dataset[];
    readonly locationIds: readonly number[];
    readonly from: Date;
    readonly to: Date;
    readonly now?: Date;
  },
): Promise<Gap[]> {
  const end = new Date(Math.min(request.to.getTime(), lastCompleteHourEnd(request.now).getTime()));
  const gaps: Gap[] = [];
  for (const dataset of request.datasets) {
    const start = new Date(Math.max(request.from.getTime(), HISTORY_STARTS[dataset].getTime()));
    if (start >= end || request.locationIds.length === 0) continue;
    const { rows } = await sql<{ location_id: number; gap_from: Date; gap_to: Date }>`
      with wanted as (
        select unnest(${[...request.locationIds]}::int[]) as location_id
      ), done as (
        select location_id, range_agg(tstzrange(window_from, window_to)) as ranges
        from envdata.chunk
        where dataset = ${dataset}::envdata.dataset and status = 'done'
          and location_id = any(${[...request.locationIds]}::int[])
          and window_to > ${start} and window_from < ${end}
        group by location_id
      )
      select w.location_id, lower(g) as gap_from, upper(g) as gap_to
      from wanted w
      left join done d using (location_id)
      cross join lateral unnest(
        tstzmultirange(tstzrange(${start}, ${end})) - coalesce(d.ranges, '{}'::tstzmultirange)
      ) as g
      order by w.location_id, gap_from`.execute(db);
    for (const row of rows) {
      gaps.push({ dataset, locationId: row.location_id, from: row.gap_from, to: row.gap_to });
    }
  }
  return gaps;
}
