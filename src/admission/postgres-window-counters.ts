import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import type { Reservation, ReserveOptions, WindowCounters } from './window-counters.js';
import { nextCallSlot } from './next-call-slot.js';

/**
 * The window counters as rows, for the Postgres queue backend. A fixed window's count is a row of
 * `envdata.call_budget` (migration 0013): one upsert per call, atomic under concurrent workers
 * like Redis's INCR; the first call of a window also deletes the windows that have expired, so
 * the table stays a few rows long. A rule's call slots are a row of `envdata.call_pace`
 * (migration 0016), oldest first in one array, the rule (`nextCallSlot`) applied here under a
 * transaction-scoped advisory lock. The lock takes turns between workers before the clock is
 * read, so a slot is never reserved on a clock read while another worker held the row.
 */
export class PostgresWindowCounters implements WindowCounters {
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

  async reserve(
    rule: string,
    max: number,
    windowMs: number,
    options: ReserveOptions = {},
  ): Promise<Reservation> {
    let askedAt = 0;
    const { slot, waitMs } = await this.db()
      .transaction()
      .execute(async (trx) => {
        await lock(trx, rule);
        askedAt = performance.now();
        const { rows } = await sql<{ now: string; slots: string[] | null }>`
          select (extract(epoch from clock_timestamp()) * 1000)::bigint::text as now,
            (select slots::text[] from envdata.call_pace where rule = ${rule}) as slots`.execute(
          trx,
        );
        const next = nextCallSlot((rows[0]!.slots ?? []).map(Number), Number(rows[0]!.now), {
          max,
          windowMs,
          horizonMs: options.horizonMs ?? Number.POSITIVE_INFINITY,
          spacingMs: options.spacingMs ?? 0,
          moving: options.moving,
        });
        if (next.slot !== undefined) {
          const expires = next.slot + 2 * windowMs;
          await sql`
            insert into envdata.call_pace (rule, slots, expires_at)
            values (${rule}, ${`{${next.slots.join(',')}}`}::bigint[],
              to_timestamp(${expires}::bigint / 1000.0))
            on conflict (rule) do update
              set slots = excluded.slots, expires_at = excluded.expires_at`.execute(trx);
        }
        return next;
      });
    return { waitMs, slot, askedAt, answeredAt: performance.now() };
  }

  async release(rule: string, slot: number): Promise<void> {
    await this.db()
      .transaction()
      .execute(async (trx) => {
        await lock(trx, rule);
        await sql`
          update envdata.call_pace
          set slots = slots[:array_position(slots, ${slot}::bigint) - 1]
            || slots[array_position(slots, ${slot}::bigint) + 1:]
          where rule = ${rule} and array_position(slots, ${slot}::bigint) is not null`.execute(trx);
      });
  }

  roundTrip(): Promise<Pick<Reservation, 'askedAt' | 'answeredAt'>> {
    // Timed once a connection of the pool is held: waiting for one is not the network's.
    const db = this.db();
    return db.connection().execute(async (connection) => {
      const askedAt = performance.now();
      await sql`select 1`.execute(connection);
      return { askedAt, answeredAt: performance.now() };
    });
  }
}

/** Takes the rule's turn until the transaction ends. */
async function lock(trx: Kysely<Database>, rule: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`envdata:pace:${rule}`}))`.execute(trx);
}
