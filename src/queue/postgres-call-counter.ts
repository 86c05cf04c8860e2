import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import type { CallCounter } from './call-counter.js';

/**
 * The call counters as rows of `envdata.call_budget` (migration 0013), for the Postgres queue
 * backend: one upsert per call, atomic under concurrent workers like Redis's INCR. The first call
 * of a window also deletes the windows that have expired, so the table stays a few rows long.
 */
export class PostgresCallCounter implements CallCounter {
  constructor(private readonly db: () => Kysely<Database>) {}

  async increment(durationMs: number, windowIndex: number): Promise<number> {
    const db = this.db();
    const { rows } = await sql<{ used: number }>`
      insert into envdata.call_budget as b (duration_ms, window_index, used, expires_at)
      values (${durationMs}, ${windowIndex}, 1,
              now() + make_interval(secs => ${durationMs * 2} / 1000.0))
      on conflict (duration_ms, window_index) do update set used = b.used + 1
      returning b.used`.execute(db);
    const used = rows[0]!.used;
    if (used === 1) {
      await sql`delete from envdata.call_budget where expires_at < now()`.execute(db);
    }
    return used;
  }
}
