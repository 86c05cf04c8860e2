import { sql, type Kysely } from 'kysely';

/**
 * What a run re-read, and the archive's retention (issue 40):
 * - `envdata.chunk.reread_hours`: hours its landings brought that the coverage recorded as landed
 *   already (another run's, an earlier answer of the chunk): the hours whose values it could
 *   revise. `envdata.run.folded_reread_hours` keeps those of its folded chunks, by dataset
 *   (`{"weather": 48}`), so a run's figure reads the same once its chunks are folded. Chunks
 *   landed before this migration count none.
 * - `envdata.answer_body (stored_at)` indexed: ENVDATA_ARCHIVE_RETENTION_DAYS drops the bodies
 *   stored before its cutoff, oldest first, in small batches.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.chunk add column reread_hours integer not null default 0;
    comment on column envdata.chunk.reread_hours is
      'Hours its landings brought that had landed before (coverage), counted once per landing: what its run re-read.';
    alter table envdata.run add column folded_reread_hours jsonb not null default '{}';
    comment on column envdata.run.folded_reread_hours is
      'Re-read hours (chunk.reread_hours) of its folded chunks, by dataset: {"weather": 48, "pollen": 48}.';
    create index answer_body_stored_at on envdata.answer_body (stored_at, body_sha256);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index envdata.answer_body_stored_at;
    alter table envdata.run drop column folded_reread_hours;
    alter table envdata.chunk drop column reread_hours;
  `.execute(db);
}
