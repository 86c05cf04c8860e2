import { sql, type Kysely } from 'kysely';

/**
 * Each archived body's SHA-256 (of the body as received, before compression), so a landing can
 * tell an identical answer from the one stored without compressing it again: a re-landing then
 * sends no body at all. Rows archived before this migration have none and are rewritten once,
 * by their next landing.
 *
 * The body is gzip already: `storage external` keeps it out of line without Postgres trying to
 * compress it a second time.
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.raw_payload
      add column body_sha256 bytea check (octet_length(body_sha256) = 32),
      alter column body set storage external;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.raw_payload
      drop column body_sha256,
      alter column body set storage extended;
  `.execute(db);
}
