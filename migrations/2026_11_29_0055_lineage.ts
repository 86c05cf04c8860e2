import { sql, type Kysely } from 'kysely';

/**
 * OpenLineage events (issue 41). They go through the alerts' outbox: an `envdata.notification`
 * row with `event = 'lineage'`, written in the transaction of the run's transition, its
 * `dedupe_key` one per transition (`lineage:run:12:1:start`, `lineage:run:12:1:end`), its
 * `details` the snapshot the event is built from; its delivery a `notification_delivery` row of
 * target `openlineage`, which no alert target ever is.
 *
 * - `envdata.lineage_receiver`: a process with ENVDATA_OPENLINEAGE_URL set says so here (and
 *   again while it runs, `seen_at`). Runs record lineage events while a receiver was seen in the
 *   last 7 days, whichever process makes the transition (a CLI without the setting too).
 * - `notification_lineage_run`: the lineage events of a run, found by its id.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.lineage_receiver (
      receiver text primary key,
      seen_at timestamptz not null default now()
    );
    comment on table envdata.lineage_receiver is
      'Processes with ENVDATA_OPENLINEAGE_URL set say so here: while one was seen in the last 7 days, runs record OpenLineage events in the outbox.';
    create index notification_lineage_run on envdata.notification (((details->>'runId')::int))
      where event = 'lineage';
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index envdata.notification_lineage_run;
    drop table envdata.lineage_receiver;
  `.execute(db);
}
