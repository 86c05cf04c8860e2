import { sql, type Transaction } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/**
 * Waits for, then holds until `trx` ends, the one planning lock (transaction-level advisory):
 * plans that write are made one at a time, each seeing the runs the ones before it committed.
 */
export async function lockPlanning(trx: Transaction<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('envdata.plan'))`.execute(trx);
}
