import { sql, type Kysely } from 'kysely';

/**
 * The plan's calendar quotas (ENVDATA_QUOTA), for the Postgres queue backend: one row per quota
 * window (`day` or `month`) and period (the provider's local date `2026-11-26` or month
 * `2026-11`), counting the calls every worker of the installation took in it. With the Redis
 * backend the same counters are Redis keys and this table stays empty. Logged, unlike
 * `call_budget`: a quota is money, and a crash must not hand out a day's calls a second time.
 * Rows are deleted after `expires_at` by the workers themselves.
 *
 * A run held by a quota says so: `waiting_reason` (`quota (day)`, `quota (month)`) until
 * `waiting_until`, the reset; read by `status`, set by the worker that put a job back.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.quota_usage (
      quota_window text not null check (quota_window in ('day', 'month')),
      period text not null,
      used integer not null check (used >= 0),
      expires_at timestamptz not null,
      primary key (quota_window, period)
    );
    alter table envdata.run
      add column waiting_reason text,
      add column waiting_until timestamptz;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.run drop column waiting_reason, drop column waiting_until;
    drop table envdata.quota_usage;
  `.execute(db);
}
