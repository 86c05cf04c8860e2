import type { Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/**
 * Pauses a running run: no worker starts another of its chunks (a claim needs a running run);
 * chunks in flight finish and land. `envdata resume RUN` runs it again. Returns whether it was
 * running.
 */
export async function pauseRun(db: Kysely<Database>, runId: number): Promise<boolean> {
  const result = await db
    .updateTable('run')
    .set({ status: 'paused' })
    .where('run_id', '=', runId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
