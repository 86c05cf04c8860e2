import { sql, type Kysely } from 'kysely';

/**
 * The history window learned per dataset, API key and service address
 * (`ENVDATA_HISTORY_WINDOW=auto`): the longest range the service accepted and the shortest it
 * refused as too long, for the planner and the feeder to size chunks by. The key is never
 * stored: `key_fingerprint` is the first 16 hex digits of its SHA-256.
 *
 * - `probe_chunk_id`: the chunk asking for a longer window than the one known to be accepted,
 *   while it is in flight (one per dataset, key and address);
 * - `run.window_auto`: the run's chunks are sized by what was learned, not `window_hours`;
 * - `run_gap.window_probes`: the probes made for this gap, to bound them per run.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.history_window (
      dataset envdata.dataset not null,
      key_fingerprint text not null check (key_fingerprint ~ '^[0-9a-f]{16}$'),
      base_url text not null,
      accepted_hours integer check (accepted_hours >= 1),
      refused_hours integer check (refused_hours >= 1),
      probe_chunk_id bigint,
      updated_at timestamptz not null default now(),
      primary key (dataset, key_fingerprint, base_url),
      check (accepted_hours < refused_hours)
    );
    alter table envdata.run add column window_auto boolean not null default false;
    alter table envdata.run_gap add column window_probes integer not null default 0
      check (window_probes >= 0);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.run_gap drop column window_probes;
    alter table envdata.run drop column window_auto;
    drop table envdata.history_window;
  `.execute(db);
}
