import { sql, type Kysely } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';

/**
 * The location and dataset pairs an unfinished run (planning or running) is filling up to
 * `recentFrom` or later, as `"<locationId>:<dataset>"`: a chunk of the run, or a gap it has still
 * to cut into chunks, ends at or after it. Such a location is not stale for alerting: its first
 * backfill lands older chunks first, and the work that brings its recent hours is queued (a
 * paused or stopped run is not counted: it needs a person, and has its own alert).
 */
export async function locationsBeingFilled(
  db: Kysely<Database>,
  recentFrom: Date,
): Promise<Set<string>> {
  const { rows } = await sql<{ location_id: number; dataset: Dataset }>`
    select c.location_id, c.dataset from envdata.chunk c
    join envdata.run r on r.run_id = c.run_id
    where r.status in ('planning', 'running') and c.window_to >= ${recentFrom}
      and c.status in ('pending', 'queued', 'running')
    union
    select g.location_id, g.dataset from envdata.run_gap g
    join envdata.run r on r.run_id = g.run_id
    where r.status in ('planning', 'running') and g.gap_to >= ${recentFrom}
      and g.next_from < g.gap_to`.execute(db);
  return new Set(rows.map((r) => `${r.location_id}:${r.dataset}`));
}
