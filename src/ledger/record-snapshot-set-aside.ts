import { sql, type Kysely } from 'kysely';
import type { ShareField } from '../types.js';
import type { QuarantinedRecord } from '../warehouse/fact-rows.js';
import type { Database } from '../warehouse/schema.js';
import { storableJson, storableText } from '../warehouse/storable-json.js';
import { instants } from '../warehouse/wire/index.js';

/** Which snapshot of which sync set values aside: `source` is `weather_latest`, …. */
export interface SnapshotSetAside {
  readonly runId: number;
  readonly locationId: number;
  readonly source: string;
  /** The snapshot's instant (`fetched_at` of its rows). */
  readonly fetchedAt: Date;
  /**
   * The share fields whose unit the answer could not tell (only 0s and 1s) with none
   * remembered: once an answer of the same source tells one, its values set aside are filled
   * (`fillSnapshotSetAside`). A contradictory field is not one: no unit reads it.
   */
  readonly unitUntold: readonly ShareField[];
}

/**
 * What envdata adds to the `raw` record of a snapshot's quarantine row, under the key
 * `SNAPSHOT_NOTE_KEY`: which snapshot rows hold the record's values (its location, product
 * and hour are the row's, its fetch is `fetchedAt`) and which of its fields a unit learned
 * later may fill (`unitUntold`).
 */
export interface SnapshotSetAsideNote {
  readonly fetchedAt: string;
  readonly unitUntold: readonly ShareField[];
}

/** The key of `raw` that holds the `SnapshotSetAsideNote` (no field of the service's records). */
export const SNAPSHOT_NOTE_KEY = '_envdata';

/**
 * Records the values a snapshot of sync `runId` set aside (`SET_ASIDE_REASONS`), one
 * `envdata.quarantine` row per record, without a chunk: the run then counts them like its
 * chunks' (`valuesSetAside`), so `sync --wait` and `status RUN` tell them. Replaces what an
 * earlier attempt of the same snapshot recorded, so a retried job records them once. A run
 * gone from the ledger keeps them without a run. Each row's `raw` is the record with a
 * `SnapshotSetAsideNote`, for the fill that may come once the unit is told.
 */
export async function recordSnapshotSetAside(
  db: Kysely<Database>,
  snapshot: SnapshotSetAside,
  records: readonly QuarantinedRecord[],
): Promise<void> {
  const { runId, locationId, source } = snapshot;
  const note: SnapshotSetAsideNote = {
    fetchedAt: snapshot.fetchedAt.toISOString(),
    unitUntold: snapshot.unitUntold,
  };
  await db.transaction().execute(async (trx) => {
    await sql`
      delete from envdata.quarantine
      where run_id = ${runId} and location_id = ${locationId} and source = ${source}
        and chunk_id is null`.execute(trx);
    if (records.length === 0) return;
    await sql`
      insert into envdata.quarantine
        (chunk_id, run_id, location_id, source, record_index, raw, reason, observed_at)
      select null, (select run_id from envdata.run where run_id = ${runId}), ${locationId},
        ${source}, r.record_index,
        coalesce(r.raw, '{}'::jsonb) || jsonb_build_object(${SNAPSHOT_NOTE_KEY}::text, ${JSON.stringify(note)}::jsonb),
        r.reason, r.observed_at
      from unnest(${records.map((r) => r.recordIndex)}::int[],
        ${records.map((r) => storableJson(r.raw))}::jsonb[],
        ${records.map((r) => storableText(r.reason))}::text[],
        ${instants(records.map((r) => r.hour ?? null))}::timestamptz[])
        as r(record_index, raw, reason, observed_at)`.execute(trx);
  });
}
