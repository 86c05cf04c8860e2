import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import type { CallSlots, Reservation, ReserveOptions } from './call-slots.js';
import { nextCallSlot } from './next-call-slot.js';

/**
 * Call slots as rows of `envdata.call_pace` (migration 0016), for the Postgres queue backend: a
 * rule's slots, oldest first, in one array, the rule (`nextCallSlot`) applied here under a
 * transaction-scoped advisory lock. The lock takes turns between workers before the clock is
 * read, so a slot is never reserved on a clock read while another worker held the row.
 */
export class PostgresCallSlots implements CallSlots {
  constructor(private readonly db: () => Kysely<Database>) {}

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
    return this.db()
      .connection()
      .execute(async (connection) => {
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
