import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import type { CallSlots, Reservation } from './call-slots.js';

/**
 * Call slots as rows of `envdata.call_pace` (migration 0016), for the Postgres queue backend: the
 * latest `max` slots of a rule, oldest first, in one array. A transaction-scoped advisory lock
 * takes turns between workers before the clock is read, so a slot is never reserved on a clock
 * read while another worker held the row.
 */
export class PostgresCallSlots implements CallSlots {
  constructor(private readonly db: () => Kysely<Database>) {}

  async reserve(rule: string, max: number, windowMs: number): Promise<Reservation> {
    let askedAt = 0;
    const waitMs = await this.db()
      .transaction()
      .execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(hashtext(${`envdata:pace:${rule}`}))`.execute(trx);
        askedAt = performance.now();
        const { rows } = await sql<{ wait: string }>`
          with now as (select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms),
          cur as (select coalesce((select slots from envdata.call_pace where rule = ${rule}),
                                  '{}'::bigint[]) as slots),
          next as (
            select now.ms, cur.slots,
              greatest(now.ms, case when cardinality(cur.slots) >= ${max}::int
                then cur.slots[cardinality(cur.slots) - ${max}::int + 1] + ${windowMs}::bigint
                end) as slot
            from now, cur
          ),
          saved as (
            insert into envdata.call_pace (rule, slots, expires_at)
            select ${rule}, (slots || slot)[greatest(1, cardinality(slots) + 2 - ${max}::int):],
              to_timestamp((slot + 2 * ${windowMs}::bigint) / 1000.0)
            from next
            on conflict (rule) do update set slots = excluded.slots, expires_at = excluded.expires_at
          )
          select (slot - ms)::text as wait from next`.execute(trx);
        return Number(rows[0]!.wait);
      });
    return { waitMs, askedAt, answeredAt: performance.now() };
  }

  roundTrip(): Promise<Pick<Reservation, 'askedAt' | 'answeredAt'>> {
    // Timed once a connection of the pool is held: waiting for one is not the network's.
    return this.db()
      .connection()
      .execute(async (connection) => {
        const askedAt = performance.now();
        await sql`select 1`.execute(connection);
        return { askedAt, answeredAt: performance.now() };
      });
  }
}
