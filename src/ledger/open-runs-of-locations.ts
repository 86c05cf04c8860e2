import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/** Runs still working on any of these locations, with their open chunks (a purge must wait). */
export async function openRunsOfLocations(
  db: Kysely<Database> | Transaction<Database>,
  locationIds: readonly number[],
): Promise<{ run_id: number; chunks: number }[]> {
  return db
    .selectFrom('chunk as c')
    .innerJoin('run as r', 'r.run_id', 'c.run_id')
    .select(['r.run_id', sql<number>`count(*)::int`.as('chunks')])
    .where('c.location_id', 'in', locationIds)
    .where('c.status', 'in', ['pending', 'queued', 'running'])
    .where('r.status', 'in', ['planning', 'running'])
    .groupBy('r.run_id')
    .orderBy('r.run_id')
    .execute();
}
