import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/warehouse/schema.js';

/** Rows in the revision tables (migration 0051): the values landings replaced so far. */
export interface RevisionCounts {
  readonly weather: number;
  readonly pollen: number;
  readonly species: number;
}

/** Counts the rows of each revision table (exact, `count(*)`). */
export async function countRevisions(db: Kysely<Database>): Promise<RevisionCounts> {
  const { rows } = await sql<RevisionCounts>`
    select (select count(*) from envdata.weather_hourly_revision)::int as weather,
      (select count(*) from envdata.pollen_hourly_revision)::int as pollen,
      (select count(*) from envdata.pollen_species_hourly_revision)::int as species`.execute(db);
  return rows[0]!;
}
