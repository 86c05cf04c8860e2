import type { Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import type { ClaimedChunk } from './claim-chunk.js';

/**
 * The service said the window is too long (or its answer too large): the chunk is split into
 * two halves on whole hours (queued, same run), or into windows of `pieceHours` from its start
 * when given (a refused probe goes back to the window known to be accepted), and marked
 * `split`. Returns the new chunks' ids, or `[]` for a one-hour chunk, which cannot be split
 * (the caller fails it).
 */
export async function splitChunk(
  db: Kysely<Database>,
  chunk: Pick<ClaimedChunk, 'chunkId' | 'runId' | 'dataset' | 'location' | 'window'>,
  attempts: number,
  code = 'RANGE_TOO_LONG',
  pieceHours?: number,
): Promise<number[]> {
  const hours = (chunk.window.to.getTime() - chunk.window.from.getTime()) / 3_600_000;
  if (hours <= 1) return [];
  const halving = pieceHours === undefined || pieceHours < 1 || pieceHours >= hours;
  const step = halving ? Math.floor(hours / 2) : pieceHours;
  return db.transaction().execute(async (trx) => {
    const halves: { from: Date; to: Date }[] = [];
    for (let t = chunk.window.from.getTime(); t < chunk.window.to.getTime();) {
      const to = Math.min(t + step * 3_600_000, chunk.window.to.getTime());
      halves.push({ from: new Date(t), to: new Date(to) });
      t = to;
    }
    // Halves of an odd number of hours: the second takes the extra hour, as it always did.
    if (halving && halves.length === 3) {
      halves.splice(1, 2, { from: halves[1]!.from, to: chunk.window.to });
    }
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
            .columns(['run_id', 'dataset', 'location_id', 'window_from', 'window_to'])
            .doUpdateSet({ parent_chunk_id: chunk.chunkId }),
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
        error_code: code,
        error_message: `split into ${halves.length} windows of at most ${Math.max(
          ...halves.map((h) => (h.to.getTime() - h.from.getTime()) / 3_600_000),
        )} h`,
        finished_at: new Date(),
      }))
      .where('chunk_id', '=', chunk.chunkId)
      .execute();
    return ids;
  });
}
