import { sql, type Kysely } from 'kysely';

/**
 * The ingestion ledger (runs and chunks), the quarantine of rejected records, the raw payload
 * archive and the queue of days whose daily rollups need refreshing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create type envdata.dataset as enum ('pollen', 'weather');
    create type envdata.chunk_status as enum ('pending', 'queued', 'running', 'done', 'failed', 'split');

    create table envdata.run (
      run_id integer generated always as identity primary key,
      kind text not null check (kind in ('backfill', 'sync', 'rebuild')),
      status text not null default 'running'
        check (status in ('planning', 'running', 'done', 'failed', 'stopped')),
      request jsonb not null default '{}',
      created_at timestamptz not null default now(),
      finished_at timestamptz,
      error_code text,
      error_message text
    );

    create table envdata.chunk (
      chunk_id bigint generated always as identity primary key,
      run_id integer references envdata.run on delete set null,
      dataset envdata.dataset not null,
      location_id integer not null references envdata.location on delete cascade,
      window_from timestamptz not null,
      window_to timestamptz not null,
      status envdata.chunk_status not null default 'pending',
      outcome text check (outcome in ('rows', 'no_data', 'not_covered')),
      attempts integer not null default 0,
      calls integer not null default 0,
      rows_landed integer not null default 0,
      rows_quarantined integer not null default 0,
      error_code text,
      error_message text,
      parent_chunk_id bigint references envdata.chunk on delete cascade,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz,
      check (window_from < window_to),
      unique (dataset, location_id, window_from, window_to)
    );
    create index chunk_run_status on envdata.chunk (run_id, status);
    create index chunk_open on envdata.chunk (dataset, location_id, window_from)
      where status <> 'done' and status <> 'split';

    create table envdata.quarantine (
      quarantine_id bigint generated always as identity primary key,
      chunk_id bigint references envdata.chunk on delete cascade,
      source text not null,
      location_id integer references envdata.location on delete cascade,
      record_index integer not null,
      raw jsonb,
      reason text not null,
      created_at timestamptz not null default now()
    );
    create index quarantine_chunk on envdata.quarantine (chunk_id);

    create table envdata.raw_payload (
      chunk_id bigint primary key references envdata.chunk on delete cascade,
      fetched_at timestamptz not null,
      http_status smallint not null,
      encoding text not null default 'gzip' check (encoding in ('gzip')),
      body bytea not null,
      body_bytes integer not null
    );

    create table envdata.rollup_dirty (
      location_id integer not null references envdata.location on delete cascade,
      dataset envdata.dataset not null,
      from_at timestamptz not null,
      to_at timestamptz not null
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table if exists envdata.rollup_dirty, envdata.raw_payload, envdata.quarantine,
      envdata.chunk, envdata.run cascade;
    drop type if exists envdata.chunk_status, envdata.dataset;
  `.execute(db);
}
