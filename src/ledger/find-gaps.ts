import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import { HISTORY_STARTS } from '../datasets/dataset-coverage.js';
import { lastCompleteHourEnd } from '../windows/tile-windows.js';

export interface Gap {
  readonly dataset: Dataset;
  readonly locationId: number;
  readonly from: Date;
  readonly to: Date;
}

export interface GapRequest {
  readonly datasets: readonly Dataset[];
  readonly locationIds: readonly number[];
  readonly from: Date;
  readonly to: Date;
  /** Hours missing upstream, quarantined or not covered are asked again after this long. */
  readonly recheckMs: number;
  /** Hours answered "no data": see `NoDataRecheck`. Default 0: never asked again. */
  readonly noDataRecheckMs?: NoDataRecheck;
  readonly now?: Date;
}

/**
 * When hours answered "Data not available!" are asked again: after this many milliseconds since
 * the answer (ENVDATA_NO_DATA_RECHECK), never with 0, or at once with `'force'`
 * (`backfill --recheck-no-data`).
 */
export type NoDataRecheck = number | 'force';

/**
 * The hours of a location and dataset that planning leaves alone: those that landed, holes asked
 * about less than `recheckMs` ago, and hours whose latest answer was "no data" less than
 * `noDataRecheck` ago (all of them with 0, none with `'force'`). "No data" is kept as holes of
 * cause `no_data` with the time of the answer, so each range is asked again on its own clock.
 * Reads the coverage row as `c`. With `within` (a `tstzrange` expression), only the settled
 * hours inside it: what a chunk's claim asks about its window, without merging every range of a
 * long, fragmented coverage (`claimChunk`).
 */
export function settledHours(
  recheckMs: number,
  noDataRecheck: NoDataRecheck = 0,
  within?: RawBuilder<unknown>,
) {
  const noData =
    noDataRecheck === 'force'
      ? sql`false`
      : noDataRecheck === 0
        ? sql`true`
        : sql`h.checked_at > now() - ${noDataRecheck} * interval '1 millisecond'`;
  const landed = within ? sql`c.landed * tstzmultirange(${within})` : sql`c.landed`;
  const hole = within ? sql`h.hours * ${within}` : sql`h.hours`;
  const near = within ? sql`and h.hours && ${within}` : sql``;
  return sql`(coalesce(${landed}, '{}') + coalesce((
      select range_agg(${hole}) from envdata.coverage_hole h
      where h.location_id = c.location_id and h.dataset = c.dataset ${near}
        and case when h.cause = 'no_data' then ${noData}
          else h.checked_at > now() - ${recheckMs} * interval '1 millisecond' end), '{}'))`;
}

/**
 * What is still to ingest: for each dataset and location, `[from, to)` clipped to the dataset's
 * history coverage and to the last complete hour, minus what is settled in the ledger's coverage
 * (`settledHours`). One query per dataset for all locations.
 */
export async function findGaps(db: Kysely<Database>, request: GapRequest): Promise<Gap[]> {
  const end = new Date(Math.min(request.to.getTime(), lastCompleteHourEnd(request.now).getTime()));
  const gaps: Gap[] = [];
  for (const dataset of request.datasets) {
    const start = new Date(Math.max(request.from.getTime(), HISTORY_STARTS[dataset].getTime()));
    if (start >= end || request.locationIds.length === 0) continue;
    const { rows } = await sql<{ location_id: number; gap_from: Date; gap_to: Date }>`
      select w.location_id, lower(g) as gap_from, upper(g) as gap_to
      from unnest(${[...request.locationIds]}::int[]) as w(location_id)
      left join envdata.coverage c
        on c.location_id = w.location_id and c.dataset = ${dataset}::envdata.dataset
      cross join lateral unnest(
        tstzmultirange(tstzrange(${start}, ${end}))
          - ${settledHours(request.recheckMs, request.noDataRecheckMs)}
      ) as g
      order by w.location_id, gap_from`.execute(db);
    for (const row of rows) {
      gaps.push({ dataset, locationId: row.location_id, from: row.gap_from, to: row.gap_to });
    }
  }
  return gaps;
}
