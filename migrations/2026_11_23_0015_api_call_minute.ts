import { sql, type Kysely } from 'kysely';

/**
 * The calls this installation made to the Environmental Data Service, per minute and endpoint,
 * summed over every worker: what the console's rate-limit chart (calls/s against the configured
 * limit, 429s over the last hour) reads, since the console runs in another process than the
 * workers. Each worker adds its own counts every few seconds (`calls = calls + excluded.calls`)
 * and deletes minutes older than the retention itself.
 *
 * - `calls`: every answer or transport failure of the endpoint in that minute;
 * - `throttled`: those answered 429;
 * - `failed`: the other failures (any non-2xx but 429, and transport errors).
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.api_call_minute (
      minute timestamptz not null check (date_trunc('minute', minute) = minute),
      endpoint text not null,
      calls integer not null default 0 check (calls >= 0),
      throttled integer not null default 0 check (throttled >= 0),
      failed integer not null default 0 check (failed >= 0),
      primary key (minute, endpoint)
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table envdata.api_call_minute;`.execute(db);
}
