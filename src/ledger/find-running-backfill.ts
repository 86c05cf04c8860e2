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
