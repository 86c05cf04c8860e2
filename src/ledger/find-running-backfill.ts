import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/** The newest running backfill whose request contains `signature` (the same command again). */
export async function findRunningBackfill(
  db: Kysely<Database>,
  signature: Record<string, unknown>,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('run')
    .select('run_id')
    .where('kind', '=', 'backfill')
    .where('status', '=', 'running')
    .where(sql<boolean>`request @> ${JSON.stringify(signature)}::jsonb`)
    .orderBy('run_id', 'desc')
    .executeTakeFirst();
  return row?.run_id;
}

/** Adds `signature` to the run's recorded request, so `findRunningBackfill` finds it. */
export async function tagRunRequest(
  db: Kysely<Database>,
  runId: number,
  signature: Record<string, unknown>,
): Promise<void> {
  await db
    .updateTable('run')
    .set({ request: sql`request || ${JSON.stringify(signature)}::jsonb` })
    .where('run_id', '=', runId)
    .execute();
}
