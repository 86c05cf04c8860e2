import type { Kysely, Transaction } from 'kysely';
import type { Database, RunKind } from '../warehouse/schema.js';

/** Opens a run in the ledger and returns its id. `request` is what was asked, for `status`. */
export async function createRun(
  db: Kysely<Database> | Transaction<Database>,
  kind: RunKind,
  request: Record<string, unknown>,
): Promise<number> {
  const row = await db
    .insertInto('run')
    .values({ kind, status: 'running', request: JSON.stringify(request) })
    .returning('run_id')
    .executeTakeFirstOrThrow();
  return row.run_id;
}
