import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import {
  afterAccepted,
  afterRefused,
  UNKNOWN_WINDOW,
  type WindowKnowledge,
  type WindowScope,
} from '../windows/learned-window.js';

/** What `envdata.history_window` knows of `dataset` at `scope`, and the probe it has in flight. */
export interface HistoryWindow extends WindowKnowledge {
  /** A chunk of a running run asking for a longer window than the accepted one, not finished. */
  readonly probeInFlight: boolean;
}

/** Reads what was learned of `dataset`'s window at `scope` (nothing known: `UNKNOWN_WINDOW`). */
export async function readHistoryWindow(
  db: Kysely<Database> | Transaction<Database>,
  scope: WindowScope,
  dataset: Dataset,
): Promise<HistoryWindow> {
  const { rows } = await sql<{
    accepted_hours: number | null;
    refused_hours: number | null;
    probe_in_flight: boolean;
  }>`
    select w.accepted_hours, w.refused_hours,
      exists (select 1 from envdata.chunk c join envdata.run r using (run_id)
        where c.chunk_id = w.probe_chunk_id and r.status = 'running'
          and c.status in ('pending', 'queued', 'running')) as probe_in_flight
    from envdata.history_window w
    where w.dataset = ${dataset} and w.key_fingerprint = ${scope.keyFingerprint}
      and w.base_url = ${scope.baseUrl}`.execute(db);
  const row = rows[0];
  if (!row) return { ...UNKNOWN_WINDOW, probeInFlight: false };
  return {
    acceptedHours: row.accepted_hours,
    refusedHours: row.refused_hours,
    probeInFlight: row.probe_in_flight,
  };
}

/** Notes `chunkId` as the probe of `dataset` at `scope` (the feeder, when it plans one). */
export async function recordProbe(
  trx: Transaction<Database>,
  scope: WindowScope,
  dataset: Dataset,
  chunkId: number,
): Promise<void> {
  await sql`
    insert into envdata.history_window as w (dataset, key_fingerprint, base_url, probe_chunk_id)
    values (${dataset}, ${scope.keyFingerprint}, ${scope.baseUrl}, ${chunkId})
    on conflict (dataset, key_fingerprint, base_url)
    do update set probe_chunk_id = excluded.probe_chunk_id, updated_at = now()`.execute(trx);
}

/**
 * Records that the service answered (`accepted`) or refused as too long (`refused`) a window of
 * `hours` for `dataset` at `scope`, and returns what is known after it (`afterAccepted`,
 * `afterRefused`). The row is locked meanwhile, so answers arriving together all count.
 */
export async function recordWindowAnswer(
  db: Kysely<Database>,
  scope: WindowScope,
  dataset: Dataset,
  answer: 'accepted' | 'refused',
  hours: number,
): Promise<WindowKnowledge> {
  return db.transaction().execute(async (trx) => {
    const key = {
      dataset,
      key_fingerprint: scope.keyFingerprint,
      base_url: scope.baseUrl,
    };
    await trx
      .insertInto('history_window')
      .values(key)
      .onConflict((oc) => oc.columns(['dataset', 'key_fingerprint', 'base_url']).doNothing())
      .execute();
    const row = await trx
      .selectFrom('history_window')
      .select(['accepted_hours', 'refused_hours'])
      .where('dataset', '=', dataset)
      .where('key_fingerprint', '=', scope.keyFingerprint)
      .where('base_url', '=', scope.baseUrl)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const before = { acceptedHours: row.accepted_hours, refusedHours: row.refused_hours };
    const after =
      answer === 'accepted' ? afterAccepted(before, hours) : afterRefused(before, hours);
    if (
      after.acceptedHours !== before.acceptedHours ||
      after.refusedHours !== before.refusedHours
    ) {
      await trx
        .updateTable('history_window')
        .set({
          accepted_hours: after.acceptedHours,
          refused_hours: after.refusedHours,
          updated_at: new Date(),
        })
        .where('dataset', '=', dataset)
        .where('key_fingerprint', '=', scope.keyFingerprint)
        .where('base_url', '=', scope.baseUrl)
        .execute();
    }
    return after;
  });
}
