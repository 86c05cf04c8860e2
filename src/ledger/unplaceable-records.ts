import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/** A record the service sent that has no readable hour, as `status RUN` lists it. */
export interface UnplaceableRecord {
  readonly quarantineId: number;
  /** The chunk whose answer carried it (its row may have been folded into the run since). */
  readonly chunkId: number | null;
  readonly locationId: number | null;
  readonly location: string | null;
  /** The endpoint kind it came from: `pollen_history`, `weather_history`. */
  readonly source: string;
  /** Its position in the answer's records. */
  readonly recordIndex: number;
  readonly reason: string;
}

/**
 * The first `limit` unplaceable records of a run (quarantined without an hour: an empty record,
 * an unreadable stamp), oldest first. `runProgress` counts them all; the full copies are in
 * `envdata.quarantine` (`observed_at is null`).
 */
export async function unplaceableRecords(
  db: Kysely<Database>,
  runId: number,
  limit = 10,
): Promise<UnplaceableRecord[]> {
  const { rows } = await sql<{
    quarantine_id: string | number;
    chunk_id: string | number | null;
    location_id: number | null;
    location: string | null;
    source: string;
    record_index: number;
    reason: string;
  }>`
    select q.quarantine_id, q.chunk_id, q.location_id, l.name as location, q.source,
      q.record_index, q.reason
    from envdata.quarantine q
    left join envdata.location l using (location_id)
    where q.run_id = ${runId} and q.observed_at is null
    order by q.quarantine_id
    limit ${limit}`.execute(db);
  return rows.map((r) => ({
    quarantineId: Number(r.quarantine_id),
    chunkId: r.chunk_id === null ? null : Number(r.chunk_id),
    locationId: r.location_id,
    location: r.location,
    source: r.source,
    recordIndex: r.record_index,
    reason: r.reason,
  }));
}
