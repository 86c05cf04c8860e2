import type { Kysely, Selectable } from 'kysely';
import { pollUntil } from '../harness/poll-until.js';
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
export function waitForChunk(
  db: Kysely<Database>,
  runId: number,
  match: (chunk: ChunkRow) => boolean,
  timeoutMs = 30_000,
): Promise<ChunkRow> {
  return pollUntil<ChunkRow, ChunkRow[]>(
    async () => {
      const chunks = await runChunks(db, runId);
      const found = chunks.find(match);
      return found ? { done: found } : { last: chunks };
    },
    {
      timeoutMs,
      everyMs: 20,
      describe: (last) =>
        `no chunk of run ${runId} matched in time; last seen: ${JSON.stringify(last)}`,
    },
  );
}

/** Resolves when no chunk of the run is in flight (`running`) any more, polling the ledger. */
export async function waitForNoneRunning(
  db: Kysely<Database>,
  runId: number,
  timeoutMs = 30_000,
): Promise<void> {
  await pollUntil<true, number[]>(
    async () => {
      const running = (await runChunks(db, runId)).filter((c) => c.status === 'running');
      return running.length === 0 ? { done: true } : { last: running.map((c) => c.chunk_id) };
    },
    {
      timeoutMs,
      everyMs: 20,
      describe: (last) => `chunks of run ${runId} still running: ${JSON.stringify(last)}`,
    },
  );
}
