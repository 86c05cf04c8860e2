import { sql, type Kysely } from 'kysely';

/**
 * The call slots of the tightest rate-limit rule, for the Postgres queue backend
 * (ENVDATA_QUEUE_BACKEND=postgres): one row per rule with its latest slots (epoch milliseconds,
 * oldest first), from which every worker of the installation reserves the next call's slot. With
 * the Redis backend the same slots are a Redis list and this table stays empty.
 *
 * Unlogged: the slots are worth one window; a crash of Postgres losing them only lets the next
 * window start afresh, as a Redis without persistence does. `expires_at` says when a rule's slots
 * are all older than two windows (a rule no longer configured can be deleted then).
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create unlogged table envdata.call_pace (
      rule text primary key,
      slots bigint[] not null,
      expires_at timestamptz not null
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table envdata.call_pace;`.execute(db);
}
