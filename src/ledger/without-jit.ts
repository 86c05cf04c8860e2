import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/**
 * Runs `read` in a transaction with Postgres's JIT compilation off. The console's grid and the
 * runs' progress (`readRunProgress`) cross every location with every month, or every run with
 * its chunks: the planner's estimate of such a product passes `jit_above_cost`, and compiling
 * then costs half a second — many times the query itself, which reads a few thousand rows.
 */
export function withoutJit<T>(
  db: Kysely<Database>,
  read: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`set local jit = off`.execute(trx);
    return read(trx);
  });
}
