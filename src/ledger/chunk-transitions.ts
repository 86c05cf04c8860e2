import { sql, type Kysely } from 'kysely';
import { toLocation } from '../locations/insert-location.js';
import type { Location } from '../locations/location.js';
import type { Dataset, Window } from '../types.js';
import type { Database } from '../warehouse/schema.js';

/** A chunk a worker may work on now, with its location and run. */
export interface ClaimedChunk {
  readonly chunkId: number;
  readonly runId: number;
  readonly dataset: Dataset;
  readonly location: Location;
  readonly window: Window;
  readonly attempts: number;
}

/**
 * Marks the chunk running and returns it, or `undefined` when there is nothing to do: the chunk
 * is done, split or failed, or its run is not running (stopped, finished), or its dataset was
 * blocked (403). That check is what makes a repeated dispatch cost no API call.
 */
export async function claimChunk(
  db: Kysely<Database>,
  chunkId: number,
): Promise<ClaimedChunk | undefined> {
  const row = await db
    .updateTable('chunk as c')
    .from('run as r')
    .set({ status: 'running', started_at: sql`coalesce(c.started_at, now())` })
    .whereRef('r.run_id', '=', 'c.run_id')
    .where('c.chunk_id', '=', chunkId)
    .where('c.status', 'in', ['pending', 'queued', 'running'])
    .where('r.status', '=', 'running')
    .where(sql<boolean>`not (c.dataset::text = any(r.blocked_datasets))`)
    .returning([
      'c.chunk_id',
      'c.run_id',
      'c.dataset',
      'c.location_id',
      'c.window_from',
      'c.window_to',
      'c.attempts',
    ])
    .executeTakeFirst();
  if (!row || row.run_id === null) return undefined;
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
  };
}

/**
 * A failed call that will be retried: the chunk waits again, the error is on record. `madeCall`
 * false: the call is already counted (a trimmed answer counts when its rows land).
 */
export async function recordRetry(
  db: Kysely<Database>,
  chunkId: number,
  attempts: number,
  code: string,
  message: string,
  madeCall = true,
): Promise<void> {
  await db
    .updateTable('chunk')
    .set((eb) => ({
      status: 'queued',
      attempts,
      calls: madeCall ? eb('calls', '+', 1) : eb.ref('calls'),
      error_code: code,
      error_message: message,
    }))
    .where('chunk_id', '=', chunkId)
    .where('status', '!=', 'done')
    .execute();
}

/** The chunk failed for good; the run goes on without it. */
export async function recordFailure(
  db: Kysely<Database>,
  chunkId: number,
  attempts: number,
  code: string,
  message: string,
  madeCall = true,
): Promise<void> {
  await db
    .updateTable('chunk')
    .set((eb) => ({
      status: 'failed',
      attempts,
      calls: madeCall ? eb('calls', '+', 1) : eb.ref('calls'),
      error_code: code,
      error_message: message,
      finished_at: new Date(),
    }))
    .where('chunk_id', '=', chunkId)
    .where('status', '!=', 'done')
    .execute();
}

/** Puts a chunk back to waiting without counting anything (rate limited, run stopped). */
export async function releaseChunk(db: Kysely<Database>, chunkId: number): Promise<void> {
  await db
    .updateTable('chunk')
    .set({ status: 'queued' })
    .where('chunk_id', '=', chunkId)
    .where('status', '=', 'running')
    .execute();
}

/**
 * The service said the window is too long (or its answer was too large): the chunk is split
 * into two halves on whole hours (queued, same run), and marked `split` with `reason` as its
 * code. Returns the halves' ids, or `[]` for a one-hour chunk, which cannot be split (the caller
 * fails it).
 */
export async function splitChunk(
  db: Kysely<Database>,
  chunk: ClaimedChunk,
  attempts: number,
  reason: 'RANGE_TOO_LONG' | 'RESPONSE_TOO_LARGE' = 'RANGE_TOO_LONG',
): Promise<number[]> {
  const hours = (chunk.window.to.getTime() - chunk.window.from.getTime()) / 3_600_000;
  if (hours <= 1) return [];
  const middle = new Date(chunk.window.from.getTime() + Math.floor(hours / 2) * 3_600_000);
  return db.transaction().execute(async (trx) => {
    const halves = [
      { from: chunk.window.from, to: middle },
      { from: middle, to: chunk.window.to },
    ];
    const ids: number[] = [];
    for (const half of halves) {
      const row = await trx
        .insertInto('chunk')
        .values({
          run_id: chunk.runId,
          dataset: chunk.dataset,
          location_id: chunk.location.locationId,
          window_from: half.from,
          window_to: half.to,
          status: 'queued',
          parent_chunk_id: chunk.chunkId,
        })
        .onConflict((oc) =>
          oc
            .columns(['dataset', 'location_id', 'window_from', 'window_to'])
            .doUpdateSet({ run_id: chunk.runId }),
        )
        .returning(['chunk_id', 'status'])
        .executeTakeFirstOrThrow();
      if (row.status !== 'done' && row.status !== 'split') ids.push(row.chunk_id);
    }
    await trx
      .updateTable('chunk')
      .set((eb) => ({
        status: 'split',
        attempts,
        calls: eb('calls', '+', 1),
        error_code: reason,
        error_message: `split into ${halves.length} windows of at most ${Math.ceil(hours / 2)} h`,
        finished_at: new Date(),
      }))
      .where('chunk_id', '=', chunk.chunkId)
      .execute();
    return ids;
  });
}

/** Stops a run at once (the key was refused): no worker calls the service for it any more. */
export async function stopRun(
  db: Kysely<Database>,
  runId: number,
  code: string,
  message: string,
): Promise<void> {
  await db
    .updateTable('run')
    .set({ status: 'stopped', error_code: code, error_message: message, finished_at: new Date() })
    .where('run_id', '=', runId)
    .where('status', '=', 'running')
    .execute();
}

/** The key may not use this dataset (403): the run stops fetching it and goes on with the rest. */
export async function blockDataset(
  db: Kysely<Database>,
  runId: number,
  dataset: Dataset,
  message: string,
): Promise<void> {
  await db
    .updateTable('run')
    .set({
      blocked_datasets: sql`array(select distinct unnest(blocked_datasets || ${[dataset]}::text[]))`,
      error_code: 'FORBIDDEN',
      error_message: message,
    })
    .where('run_id', '=', runId)
    .execute();
}

/**
 * Closes the run when nothing is left to do: `done`, or `failed` when chunks failed or a
 * dataset was blocked. Returns the new status to the one caller that closed it, else
 * `undefined`.
 */
export async function finishRunIfDone(
  db: Kysely<Database>,
  runId: number,
): Promise<'done' | 'failed' | undefined> {
  const { rows } = await sql<{ status: 'done' | 'failed' }>`
    update envdata.run r set
      status = case
        when cardinality(r.blocked_datasets) > 0 then 'failed'
        when exists (select 1 from envdata.chunk c where c.run_id = r.run_id and c.status = 'failed')
          then 'failed'
        else 'done' end,
      finished_at = now()
    where r.run_id = ${runId} and r.status = 'running'
      and not exists (
        select 1 from envdata.run_gap g
        where g.run_id = r.run_id and g.next_from < g.gap_to
          and not (g.dataset::text = any(r.blocked_datasets)))
      and not exists (
        select 1 from envdata.chunk c
        where c.run_id = r.run_id and c.status in ('pending', 'queued', 'running')
          and not (c.dataset::text = any(r.blocked_datasets)))
    returning r.status`.execute(db);
  return rows[0]?.status;
}
