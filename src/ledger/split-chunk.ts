import type { Kysely, Transaction } from 'kysely';
import type { Window } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import type { ClaimedChunk } from './claim-chunk.js';

/**
 * The service said the window is too long (or its answer too large): the chunk is split into
 * two halves on whole hours (queued, same run), or into windows of `pieceHours` from its start
 * when given (a refused probe goes back to the window known to be accepted), and marked
 * `split`. Returns the new chunks' ids, or `[]` for a one-hour chunk, which cannot be split
 * (the caller fails it). Within `db`'s transaction when it is one, else in one of its own.
 */
export async function splitChunk(
  db: Kysely<Database>,
  chunk: Pick<ClaimedChunk, 'chunkId' | 'runId' | 'dataset' | 'location' | 'window'>,
  attempts: number,
  code = 'RANGE_TOO_LONG',
  pieceHours?: number,
): Promise<number[]> {
  const halves = splitWindows(chunk.window, pieceHours);
  if (halves.length === 0) return [];
  const write = async (trx: Transaction<Database>) => {
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
  };
  return db.isTransaction ? write(db as Transaction<Database>) : db.transaction().execute(write);
}

/**
 * The windows `splitChunk` cuts `window` into: two halves on whole hours (the second takes an
 * odd hour), or windows of `pieceHours` from its start; none for a window of one hour.
 */
export function splitWindows(window: Window, pieceHours?: number): Window[] {
  const hours = (window.to.getTime() - window.from.getTime()) / 3_600_000;
  if (hours <= 1) return [];
  const halving = pieceHours === undefined || pieceHours < 1 || pieceHours >= hours;
  const step = halving ? Math.floor(hours / 2) : pieceHours;
  const halves: Window[] = [];
  for (let t = window.from.getTime(); t < window.to.getTime();) {
    const to = Math.min(t + step * 3_600_000, window.to.getTime());
    halves.push({ from: new Date(t), to: new Date(to) });
    t = to;
  }
  // Halves of an odd number of hours: the second takes the extra hour, as it always did.
  if (halving && halves.length === 3) halves.splice(1, 2, { from: halves[1]!.from, to: window.to });
  return halves;
}
