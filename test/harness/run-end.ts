import type { Kysely } from 'kysely';
import type { Database } from '../../src/warehouse/schema.js';

/** How a run stands or ended: the run row's status, finish time and error, as ledger tests read it. */
export function runEnd(db: Kysely<Database>, runId: number) {
  return db
    .selectFrom('run')
    .select(['status', 'finished_at', 'error_code', 'error_message'])
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
}
