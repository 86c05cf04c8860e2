import { sql, type Kysely } from 'kysely';

/**
 * Folding keeps what a chunk with holes was (issue 39): `envdata.run.folded_missing_chunks`
 * counts the run's done chunks folded away (`ENVDATA_CHUNK_RETENTION`) that had hours missing
 * upstream, so a run's progress reads the same before and after its chunks are folded — such a
 * chunk stays "missing upstream", never "done in full". Chunks folded before this migration are
 * not known one by one: they count as done in full (their hours stay in `folded_missing_hours`).
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.run add column folded_missing_chunks integer not null default 0;
    comment on column envdata.run.folded_missing_chunks is
      'Of folded_chunks, those that landed with hours missing upstream (missing_hours > 0).';
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table envdata.run drop column folded_missing_chunks`.execute(db);
}
