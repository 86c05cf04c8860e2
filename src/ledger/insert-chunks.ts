import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';

export interface PlannedChunk {
  readonly dataset: Dataset;
  readonly locationId: number;
  readonly from: Date;
  readonly to: Date;
  readonly parentChunkId?: number;
}

/**
 * Writes chunks of `runId` in one statement (test fixtures and benchmarks; runs are fed from
 * their gaps by `materializeChunks`). A window the run already has is left as it is. Returns the
 * number of chunks written.
 */
export async function insertChunks(
  db: Kysely<Database> | Transaction<Database>,
  runId: number | null,
  chunks: readonly PlannedChunk[],
): Promise<number> {
  if (chunks.length === 0) return 0;
  const result = await sql`
    insert into envdata.chunk as c (run_id, dataset, location_id, window_from, window_to, parent_chunk_id)
    select ${runId}::int, * from unnest(
      ${chunks.map((c) => c.dataset)}::envdata.dataset[],
      ${chunks.map((c) => c.locationId)}::int[],
      ${chunks.map((c) => c.from)}::timestamptz[],
      ${chunks.map((c) => c.to)}::timestamptz[],
      ${chunks.map((c) => c.parentChunkId ?? null)}::bigint[])
    on conflict (run_id, dataset, location_id, window_from, window_to) do nothing
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
