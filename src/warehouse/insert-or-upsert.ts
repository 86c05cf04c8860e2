import { sql, type RawBuilder, type Transaction } from 'kysely';
import { isUniqueViolation } from '../errors/pg-errors.js';
import type { Database } from './schema.js';

/**
 * Runs `insert`, a plain INSERT of rows none of which should be stored, under a savepoint: no
 * speculative insertion and its extra WAL record per row, about a quarter faster than the
 * upsert. Should a concurrent landing have stored some of them meanwhile (unique violation), the
 * savepoint is rolled back and `upsert` runs instead, so the table ends as the upsert alone
 * would leave it. Returns the rows written.
 */
export async function insertOrUpsert(
  trx: Transaction<Database>,
  statements: { readonly insert: RawBuilder<unknown>; readonly upsert: () => RawBuilder<unknown> },
): Promise<number> {
  await sql`savepoint envdata_facts`.execute(trx);
  try {
    const inserted = await statements.insert.execute(trx);
    await sql`release savepoint envdata_facts`.execute(trx);
    return Number(inserted.numAffectedRows ?? 0n);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await sql`rollback to savepoint envdata_facts`.execute(trx);
    await sql`release savepoint envdata_facts`.execute(trx);
  }
  const upserted = await statements.upsert().execute(trx);
  return Number(upserted.numAffectedRows ?? 0n);
}
