import type { Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/**
 * Puts a chunk back to waiting without counting an attempt (rate limited, run stopped). With
 * `callMade`, the call its job sent (answered 401, 429, "quota spent", or from a wrong address)
 * counts in its calls: a run counts every call sent, whatever the answer, as the quota does.
 */
export async function releaseChunk(
  db: Kysely<Database>,
  chunkId: number,
  options: { readonly callMade?: boolean } = {},
): Promise<void> {
  await db
    .updateTable('chunk')
    .set((eb) => ({
      status: 'queued',
      calls: options.callMade === true ? eb('calls', '+', 1) : eb.ref('calls'),
    }))
    .where('chunk_id', '=', chunkId)
    .where('status', '=', 'running')
    .execute();
}
