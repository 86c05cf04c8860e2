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
 * Writes planned chunks in one statement. A chunk already in the ledger for the same dataset,
 * location and window is adopted by `runId` unless it is done. Returns the number of chunks
 * the run now owns from this batch.
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
    on conflict (dataset, location_id, window_from, window_to) do update
      set run_id = excluded.run_id
      where c.status not in ('done', 'split') and c.run_id is distinct from excluded.run_id
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
