import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import type { QueueName } from '../../jobs/queue-names.js';
import type { HeartbeatReading, WorkerBeat, WorkerHeartbeats } from './worker-heartbeats.js';

/**
 * Heartbeats as rows of `envdata.worker_heartbeat` (migration 0032), for the Postgres queue
 * backend, timed by Postgres's clock (`now()`): one statement per beat upserts the worker's row
 * and deletes the queue's expired ones.
 */
export class PostgresWorkerHeartbeats implements WorkerHeartbeats {
  constructor(private readonly db: () => Kysely<Database>) {}

  async beat(queue: QueueName, beat: WorkerBeat): Promise<void> {
    await sql`
      with expired as (
        delete from envdata.worker_heartbeat
        where queue = ${queue} and expires_at < now() and worker_id <> ${beat.id}
      )
      insert into envdata.worker_heartbeat as h
        (queue, worker_id, host, pid, concurrency, busy, started_at, beat_at, expires_at)
      values (${queue}, ${beat.id}, ${beat.host}, ${beat.pid}, ${beat.concurrency}, ${beat.busy},
              ${beat.startedAt}, now(), now() + make_interval(secs => ${beat.expiresInMs} / 1000.0))
      on conflict (queue, worker_id) do update
        set busy = excluded.busy, beat_at = excluded.beat_at, expires_at = excluded.expires_at
    `.execute(this.db());
  }

  async remove(queue: QueueName, id: string): Promise<void> {
    await sql`
      delete from envdata.worker_heartbeat where queue = ${queue} and worker_id = ${id}
    `.execute(this.db());
  }

  async list(queue: QueueName): Promise<HeartbeatReading[]> {
    const { rows } = await sql<{
      worker_id: string;
      host: string;
      pid: number;
      concurrency: number;
      busy: number;
      beat_age: number;
      age: number;
    }>`
      select worker_id, host, pid, concurrency, busy,
             greatest(0, extract(epoch from now() - beat_at))::float8 as beat_age,
             greatest(0, extract(epoch from now() - started_at))::float8 as age
      from envdata.worker_heartbeat
      where queue = ${queue} and expires_at > now()
      order by worker_id`.execute(this.db());
    return rows.map((r) => ({
      id: r.worker_id,
      host: r.host,
      pid: r.pid,
      concurrency: r.concurrency,
      busy: r.busy,
      beatAgeSeconds: Number(r.beat_age),
      ageSeconds: Number(r.age),
    }));
  }
}
