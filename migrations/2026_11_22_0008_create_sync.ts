import { sql, type Kysely } from 'kysely';

/**
 * Sync runs re-read a lookback window that may already be done (late corrections): their gaps
 * carry `refetch`, which re-queues done chunks instead of skipping them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.run_gap add column refetch boolean not null default false;
    create index chunk_done_coverage on envdata.chunk (location_id, dataset, window_to)
      where status = 'done';
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index if exists envdata.chunk_done_coverage;
    alter table envdata.run_gap drop column if exists refetch;
  `.execute(db);
}
