import { sql, type Kysely } from 'kysely';

/**
 * The shapes the service's answers have had (issue 36, "drift seen"): one row per shape of an
 * endpoint, never one per answer, so years of nightly syncs stay a handful of rows.
 *
 * - `dataset`, `source` (`history` or a snapshot product) name the endpoint; `digest` names the
 *   shape (the first 12 hex digits of a SHA-256 over the endpoint and the shape, which
 *   `envdata upstream accept` takes); `shape` is the shape itself: key paths with their JSON
 *   types, envelope form, `message`/`status` text, the unit of each share field.
 * - `first_seen_at`, `last_seen_at`, `answers`: when and how often it was answered. Workers add
 *   their counts in batches, so the last seconds of a killed worker may be missing.
 * - `sample_chunk_id`: for history, the chunk whose answer first had it (its body is in
 *   `envdata.raw_payload` while the archive keeps it and no later answer of the chunk replaced
 *   it); `sample_body`: that first answer's body, cut at 64 KiB (snapshots are not archived).
 * - `baseline`: the first shape ever seen of its endpoint, accepted without a word;
 *   `accepted_at`: when it was accepted (the baseline, a shape that differs from an accepted one
 *   only by a share unit first told, or `envdata upstream accept`); null while it is not.
 *
 * In `envdata`, which the BI role `envdata_bi` cannot read. Frozen in time: plain SQL, no app
 * imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.upstream_shape (
      digest text primary key check (digest ~ '^[0-9a-f]{12}$'),
      dataset envdata.dataset not null,
      source text not null
        check (source in ('history', 'latest', 'forecast_48h', 'forecast_72h', 'forecast_120h')),
      shape jsonb not null,
      first_seen_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      answers bigint not null default 1 check (answers >= 0),
      sample_chunk_id bigint,
      sample_body text check (length(sample_body) <= 65536),
      baseline boolean not null default false,
      accepted_at timestamptz
    );
    create index upstream_shape_endpoint on envdata.upstream_shape (dataset, source, first_seen_at);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table envdata.upstream_shape;`.execute(db);
}
