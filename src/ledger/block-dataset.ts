import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import { recordNotification } from './record-notification.js';

/**
 * The key may not use this dataset (403): the run stops fetching it and goes on with the rest.
 * The one caller that blocks it first records `product-refused` in the same transaction: `db`'s
 * when it is one, else one of its own.
 */
export async function blockDataset(
  db: Kysely<Database>,
  runId: number,
  dataset: Dataset,
  message: string,
): Promise<void> {
  const write = async (trx: Transaction<Database>): Promise<void> => {
    const { rows } = await sql<{ kind: string }>`
      update envdata.run set
        blocked_datasets = array(select distinct unnest(blocked_datasets || ${[dataset]}::text[])),
        error_code = 'FORBIDDEN',
        error_message = ${message}
      where run_id = ${runId} and not (${dataset}::text = any(blocked_datasets))
      returning kind::text`.execute(trx);
    if (rows.length === 0) {
      // Blocked already by another worker: the message is the latest, as before.
      await trx
        .updateTable('run')
        .set({ error_code: 'FORBIDDEN', error_message: message })
        .where('run_id', '=', runId)
        .execute();
      return;
    }
    await recordNotification(trx, {
      key: `run:${runId}:forbidden:${dataset}`,
      event: 'product-refused',
      details: {
        runId,
        dataset,
        message,
        action: `enable ${dataset} for the key with the provider, then run the ${rows[0]!.kind} again`,
      },
    });
  };
  await (db.isTransaction ? write(db as Transaction<Database>) : db.transaction().execute(write));
}
