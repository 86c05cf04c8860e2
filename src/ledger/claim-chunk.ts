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
  /** Re-fetches already made for hours missing from earlier answers. */
  readonly refetches: number;
  /** Its run sizes chunks by the learned window (ENVDATA_HISTORY_WINDOW=auto). */
  readonly windowAuto: boolean;
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
      'c.refetches',
      'r.window_auto',
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
    refetches: row.refetches,
    windowAuto: row.window_auto,
  };
}
