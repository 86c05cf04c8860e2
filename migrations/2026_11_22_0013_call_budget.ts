import { sql, type Kysely } from 'kysely';

/**
 * The call budget's fixed windows, for the Postgres queue backend (ENVDATA_QUEUE_BACKEND=postgres):
 * one row per rule (its length in milliseconds) and window (the number of whole rule lengths since
 * the epoch), counting the calls every worker of the installation took in it. With the Redis
 * backend the same counters are Redis keys and this table stays empty.
 *
 * Unlogged: the counters are worth a window or a day at most, and a crash of Postgres losing them
 * only starts the windows afresh, as a Redis without persistence does. Rows are deleted after
 * `expires_at` (twice the window) by the workers themselves.
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create unlogged table envdata.call_budget (
      duration_ms bigint not null check (duration_ms > 0),
      window_index bigint not null,
      used integer not null check (used > 0),
      expires_at timestamptz not null,
      primary key (duration_ms, window_index)
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table envdata.call_budget;`.execute(db);
}
