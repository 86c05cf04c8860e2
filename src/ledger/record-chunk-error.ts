import type { Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/** A call that did not land: the code and message on record, and whether it will be retried. */
export interface ChunkError {
  readonly attempts: number;
  readonly code: string;
  readonly message: string;
}

/**
 * A failed call, counted in the chunk's calls: `retry` puts the chunk back to waiting with the error on record; `fail` ends
 * it for good (the run goes on without it; `envdata retry RUN` re-queues it). A done chunk is
 * never touched.
 */
export async function recordChunkError(
  db: Kysely<Database>,
  chunkId: number,
  outcome: 'retry' | 'fail',
  error: ChunkError,
): Promise<void> {
  await db
    .updateTable('chunk')
    .set((eb) => ({
      status: outcome === 'retry' ? 'queued' : 'failed',
      attempts: error.attempts,
      calls: eb('calls', '+', 1),
      error_code: error.code,
      error_message: error.message,
      ...(outcome === 'fail' && { finished_at: new Date() }),
    }))
    .where('chunk_id', '=', chunkId)
    .where('status', 'not in', ['done', 'split'])
    .execute();
}
