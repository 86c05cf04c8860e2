import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/** A chunk's run and the `traceparent` its plan kept (`null`: planned with tracing off). */
export interface ChunkRunTrace {
  readonly runId: number | null;
  readonly traceparent: string | null;
}

/**
 * The run and the run's `traceparent` of each chunk of `chunkIds`, by chunk id: what a chunk's
 * enqueue span links to. Read only while tracing runs.
 */
export async function chunkRunTraces(
  db: Kysely<Database>,
  chunkIds: readonly number[],
): Promise<Map<number, ChunkRunTrace>> {
  if (chunkIds.length === 0) return new Map();
  const { rows } = await sql<{
    chunk_id: number;
    run_id: number | null;
    traceparent: string | null;
  }>`
    select k.chunk_id, k.run_id, r.traceparent
    from envdata.chunk k left join envdata.run r using (run_id)
    where k.chunk_id = any(${[...chunkIds]}::bigint[])`.execute(db);
  return new Map(
    rows.map((r) => [Number(r.chunk_id), { runId: r.run_id, traceparent: r.traceparent }]),
  );
}
