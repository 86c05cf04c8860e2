import { sql, type Kysely } from 'kysely';

/**
 * Worker heartbeats for the Postgres queue backend: one row per worker (a BullMQ worker of one
 * process, `worker_id`) and queue, written by the worker every ENVDATA_WORKER_HEARTBEAT while it
 * runs, busy or idle, with the jobs it is working on (`busy`). A row whose `expires_at` passed
 * belongs to a worker that stopped beating (killed, its host gone, its event loop stuck): it is
 * no longer listed, and the next beat of any worker of the queue deletes it. A worker that
 * closes deletes its own. With the Redis backend the same heartbeats are Redis keys with a TTL
 * and this table stays empty. Unlogged, like `call_budget`: after a crash of Postgres every
 * worker writes its row again within one beat.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create unlogged table envdata.worker_heartbeat (
      queue text not null,
      worker_id text not null,
      host text not null,
      pid integer not null check (pid > 0),
      concurrency integer not null check (concurrency > 0),
      busy integer not null check (busy >= 0),
      started_at timestamptz not null,
      beat_at timestamptz not null,
      expires_at timestamptz not null,
      primary key (queue, worker_id)
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table envdata.worker_heartbeat;`.execute(db);
}
