import { sql, type Kysely } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';

/** The key may not use this dataset (403): the run stops fetching it and goes on with the rest. */
export async function blockDataset(
  db: Kysely<Database>,
  runId: number,
  dataset: Dataset,
  message: string,
): Promise<void> {
  await db
    .updateTable('run')
    .set({
      blocked_datasets: sql`array(select distinct unnest(blocked_datasets || ${[dataset]}::text[]))`,
      error_code: 'FORBIDDEN',
      error_message: message,
    })
    .where('run_id', '=', runId)
    .execute();
}
