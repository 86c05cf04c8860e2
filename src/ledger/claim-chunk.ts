import { sql, type Kysely } from 'kysely';
import { toLocation } from '../locations/insert-location.js';
import type { Location } from '../locations/location.js';
import type { Dataset, Window } from '../types.js';
import { named } from '../warehouse/wire/index.js';
import type { Database } from '../warehouse/schema.js';
import { settledHours, type NoDataRecheck } from './find-gaps.js';
import { frozenDataset } from './drift-policy.js';

/** A chunk a worker may work on now, with its location and run. */
export interface ClaimedChunk {
  readonly chunkId: number;
  readonly runId: number;
  readonly dataset: Dataset;
  readonly location: Location;
  readonly window: Window;
  readonly attempts: number;
  /** Re-fetches already made for hours missing from earlier answers. */
  readonly refetches: number;
  /** Its run sizes chunks by the learned window (ENVDATA_HISTORY_WINDOW=auto). */
  readonly windowAuto: boolean;
}

/** A chunk found settled at claim time: marked done, outcome `settled`, without a call. */
export interface SettledChunk {
  readonly settled: true;
  readonly chunkId: number;
  readonly runId: number;
  readonly dataset: Dataset;
}

/** The recheck intervals a claim reads holes with: the planner's (`settledHours`). */
export interface ClaimRechecks {
  /** ENVDATA_MISSING_RECHECK, in milliseconds. */
  readonly recheckMs: number;
  /** ENVDATA_NO_DATA_RECHECK, in milliseconds; 0 never. */
  readonly noDataRecheckMs: NoDataRecheck;
}

/**
 * Marks the chunk running and returns it, or `undefined` when there is nothing to do: the chunk
 * is done, split or failed, or its run is not running (stopped, finished), or its dataset was
 * blocked (403) or is frozen (drift policy `freeze`: `frozenDataset`). That check is what makes
 * a repeated dispatch cost no API call.
 *
 * A chunk whose every hour is settled in the coverage by now (`settledHours`, the planner's own
 * rule: landed since it was planned, by another run say, or a hole still within its recheck
 * interval) is marked done in the same statement, outcome `settled`, with no call made: a
 * `SettledChunk` is returned. A run that re-reads what is covered (gaps marked `refetch`: a
 * sync's lookback, `backfill --recheck-no-data`) never has a chunk settled so. The check reads
 * one coverage row by its key and that key's holes by their index, and merges only what lies in
 * the chunk's window; the statement is prepared once per connection.
 */
export async function claimChunk(
  db: Kysely<Database>,
  chunkId: number,
  rechecks: ClaimRechecks,
  /** The trace of the attempt claiming it, when sampled (`traceIdOf`): kept on the chunk. */
  traceId: string | null = null,
): Promise<ClaimedChunk | SettledChunk | undefined> {
  const window = sql`tstzrange(k.window_from, k.window_to)`;
  const settled = sql<boolean>`(not exists (
      select 1 from envdata.run_gap g where g.run_id = k.run_id and g.refetch)
    and ${settledHours(rechecks.recheckMs, rechecks.noDataRecheckMs, window)} @> ${window})`;
  // The text follows how "no data" is rechecked (`settledHours`): a name for each.
  const recheck =
    rechecks.noDataRecheckMs === 'force'
      ? 'force'
      : rechecks.noDataRecheckMs === 0
        ? 'never'
        : 'after';
  const { rows } = await named(
    `claim_chunk_${recheck}`,
    sql<{
      chunk_id: number;
      run_id: number | null;
      dataset: Dataset;
      location_id: number;
      window_from: Date;
      window_to: Date;
      attempts: number;
      refetches: number;
      window_auto: boolean;
      settled: boolean;
    }>`
    with s as (
      select k.chunk_id, ${settled} as settled
      from envdata.chunk k
      left join envdata.coverage c on c.location_id = k.location_id and c.dataset = k.dataset
      where k.chunk_id = ${chunkId}
    )
    update envdata.chunk k set
      status = case when s.settled then 'done' else 'running' end::envdata.chunk_status,
      outcome = case when s.settled then 'settled' else k.outcome end,
      error_code = case when s.settled then null else k.error_code end,
      error_message = case when s.settled then null else k.error_message end,
      started_at = coalesce(k.started_at, now()),
      finished_at = case when s.settled then now() else k.finished_at end,
      trace_id = coalesce(${traceId}::text, k.trace_id)
    from envdata.run r, s
    where s.chunk_id = k.chunk_id and r.run_id = k.run_id
      and k.status in ('pending', 'queued', 'running')
      and r.status = 'running'
      and not (k.dataset::text = any(r.blocked_datasets))
      and not ${frozenDataset(sql`k.dataset`)}
    returning k.chunk_id, k.run_id, k.dataset, k.location_id, k.window_from, k.window_to,
      k.attempts, k.refetches, r.window_auto, s.settled`,
  ).execute(db);
  const row = rows[0];
  if (!row || row.run_id === null) return undefined;
  if (row.settled) {
    return { settled: true, chunkId: row.chunk_id, runId: row.run_id, dataset: row.dataset };
  }
  const location = await db
    .selectFrom('location')
    .selectAll()
    .where('location_id', '=', row.location_id)
    .executeTakeFirstOrThrow();
  return {
    chunkId: row.chunk_id,
    runId: row.run_id,
    dataset: row.dataset,
    location: toLocation(location),
    window: { from: row.window_from, to: row.window_to },
    attempts: row.attempts,
    refetches: row.refetches,
    windowAuto: row.window_auto,
  };
}
