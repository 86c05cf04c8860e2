import type { Kysely } from 'kysely';
import type { Database } from '../../src/warehouse/schema.js';

/** How many rows `table` holds. */
export async function countRows(db: Kysely<Database>, table: keyof Database): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many weather fact rows the warehouse holds for the location. */
export async function weatherFactCount(db: Kysely<Database>, locationId: number): Promise<number> {
  const row = await db
    .selectFrom('weather_hourly')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('location_id', '=', locationId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
