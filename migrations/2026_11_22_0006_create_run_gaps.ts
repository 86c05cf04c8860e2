import { sql, type Kysely } from 'kysely';

/**
 * The plan of a run as gaps (what is still to ingest per dataset and location) with a cursor:
 * chunks are materialized from a gap in bounded batches as the queue drains, so planning a
 * million-chunk backfill writes a few thousand rows, not millions.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.run_gap (
      run_gap_id bigint generated always as identity primary key,
      run_id integer not null references envdata.run on delete cascade,
      dataset envdata.dataset not null,
      location_id integer not null references envdata.location on delete cascade,
      gap_from timestamptz not null,
      gap_to timestamptz not null,
      next_from timestamptz not null,
      window_hours integer not null check (window_hours >= 1),
      check (gap_from < gap_to and next_from between gap_from and gap_to)
    );
    create index run_gap_open on envdata.run_gap (run_id, run_gap_id) where next_from < gap_to;

    alter table envdata.run
      add column blocked_datasets text[] not null default '{}',
      add column priority integer not null default 0;
    create index run_running on envdata.run (status) where status = 'running';
    create index chunk_undispatched on envdata.chunk (run_id, chunk_id)
      where status in ('pending', 'queued', 'running');
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index if exists envdata.chunk_undispatched;
    drop index if exists envdata.run_running;
    alter table envdata.run drop column if exists blocked_datasets, drop column if exists priority;
    drop table if exists envdata.run_gap;
  `.execute(db);
}
