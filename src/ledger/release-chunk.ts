import type { Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/** Puts a chunk back to waiting without counting anything (rate limited, run stopped). */
export async function releaseChunk(db: Kysely<Database>, chunkId: number): Promise<void> {
  await db
    .updateTable('chunk')
    .set({ status: 'queued' })
    .where('chunk_id', '=', chunkId)
    .where('status', '=', 'running')
    .execute();
}
