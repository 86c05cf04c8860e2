import { sql, type Kysely } from 'kysely';

/**
 * The outbox of notifications (issue 24). `notification` holds one row per state transition a
 * person should hear of, written by the ledger in the transaction of the transition itself, so
 * it exists if and only if the transition committed; `dedupe_key` (`run:12:ended`,
 * `freshness:weather:breach:3`) is unique, so several workers, schedulers and hosts observing
 * one transition record one event (`on conflict do nothing`).
 *
 * `notification_delivery` is the state of one event at one target of ENVDATA_NOTIFY_URL, keyed
 * by the target's fingerprint (never the URL: a Slack path is a secret): pending until a POST
 * was acknowledged, then delivered; dropped past ENVDATA_NOTIFY_MAX_AGE. Dispatchers claim due
 * rows with `for update skip locked` and push `next_attempt_at` ahead while they post (a lease).
 *
 * `alert_state` keeps whether a condition checked periodically (freshness per dataset) is in
 * breach, and how many times it changed: a check that finds no change records nothing.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.notification (
      notification_id bigint generated always as identity primary key,
      dedupe_key text not null unique,
      event text not null,
      details jsonb not null default '{}',
      created_at timestamptz not null default now()
    );
    create index notification_created_at on envdata.notification (created_at);
    create table envdata.notification_delivery (
      notification_id bigint not null
        references envdata.notification (notification_id) on delete cascade,
      target text not null,
      status text not null default 'pending'
        check (status in ('pending', 'delivered', 'dropped')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      last_error text,
      delivered_at timestamptz,
      primary key (notification_id, target)
    );
    create index notification_delivery_due on envdata.notification_delivery (next_attempt_at)
      where status = 'pending';
    create table envdata.alert_state (
      alert text primary key,
      active boolean not null default false,
      changes integer not null default 0,
      changed_at timestamptz not null default now()
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table envdata.alert_state;
    drop table envdata.notification_delivery;
    drop table envdata.notification;
  `.execute(db);
}
