import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import { compareRows, type RowsComparison } from './compare-rows.js';
import type { CompletenessStatement } from './completeness-statement.js';
import { readCanonicalHours } from './read-canonical-hours.js';

/**
 * Compares the warehouse's rows of the certificate's location, dataset and range with its
 * subject, read in one read-only snapshot as `certifyRange` reads them.
 */
export function compareWarehouse(
  db: Kysely<Database>,
  statement: CompletenessStatement,
): Promise<RowsComparison> {
  const { dataset, location, from, to } = statement.predicate;
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      await sql`set local extra_float_digits = 1`.execute(trx);
      return compareRows(
        statement,
        readCanonicalHours(trx, {
          dataset,
          locationId: location.id,
          from: new Date(from),
          to: new Date(to),
        }),
      );
    });
}
