import type { Kysely, Selectable } from 'kysely';
import type { ChunkTable, Database } from '../../src/warehouse/schema.js';

export type ChunkRow = Selectable<ChunkTable>;

/** Every chunk of a run in the ledger, in id order. */
export function runChunks(db: Kysely<Database>, runId: number): Promise<ChunkRow[]> {
  return db
    .selectFrom('chunk')
    .selectAll()
    .where('run_id', '=', runId)
    .orderBy('chunk_id')
    .execute();
}

/**
 * Resolves with the first chunk of the run for which `match` holds, polling the ledger; rejects
 * after `timeoutMs` with the chunks last seen.
 */
export async function waitForChunk(
  db: Kysely<Database>,
  runId: number,
  match: (chunk: ChunkRow) => boolean,
  timeoutMs = 30_000,
): Promise<ChunkRow> {
  const deadline = Date.now() + timeoutMs;
  let last: ChunkRow[] = [];
  while (Date.now() < deadline) {
    last = await runChunks(db, runId);
    const found = last.find(match);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no chunk of run ${runId} matched in time; last seen: ${JSON.stringify(last)}`);
}
