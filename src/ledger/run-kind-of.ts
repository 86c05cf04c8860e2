import type { Kysely } from 'kysely';
import type { Database, RunKind } from '../warehouse/schema.js';

/** The kind of run `runId` (backfill, sync, rebuild); `undefined` when it is gone. */
export async function runKindOf(db: Kysely<Database>, runId: number): Promise<RunKind | undefined> {
  const row = await db
    .selectFrom('run')
    .select('kind')
    .where('run_id', '=', runId)
    .executeTakeFirst();
  return row?.kind;
}
