import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/warehouse/schema.js';

/**
 * A digest of every fact row's values (not its source `answer_id`, which follows the order
 * answers landed in), the row counts and the daily rollups, comparable across databases.
 */
export interface WarehouseDigest {
  readonly weather: string | null;
  readonly pollen: string | null;
  readonly species: string | null;
  readonly weatherRows: number;
  readonly pollenRows: number;
  readonly speciesRows: number;
  /** The daily rollups, every column as text: identical to the last digit or not at all. */
  readonly weatherDaily: string | null;
  readonly pollenDaily: string | null;
}

/**
 * Digests the fact tables of one warehouse. Species rows are named by category and name, not by
 * `species_id`: ids follow the order in which species were first landed, which differs between
 * two runs of the same request when chunks land in another order.
 */
export async function warehouseDigest(db: Kysely<Database>): Promise<WarehouseDigest> {
  const { rows } = await sql<WarehouseDigest>`
    select
      (select md5(string_agg((to_jsonb(t) - 'answer_id')::text, '|' order by location_id, observed_at))
        from envdata.weather_hourly t) as weather,
      (select md5(string_agg((to_jsonb(t) - 'answer_id')::text, '|' order by location_id, observed_at, pollen_type))
        from envdata.pollen_hourly t) as pollen,
      (select md5(string_agg(
          concat_ws(',', t.location_id, t.observed_at, s.category, s.name, t.count, t.risk_level),
          '|' order by t.location_id, t.observed_at, s.category, s.name))
        from envdata.pollen_species_hourly t join envdata.pollen_species s using (species_id))
        as species,
      (select count(*)::int from envdata.weather_hourly) as "weatherRows",
      (select count(*)::int from envdata.pollen_hourly) as "pollenRows",
      (select count(*)::int from envdata.pollen_species_hourly) as "speciesRows",
      (select md5(string_agg(t::text, '|' order by location_id, local_date))
        from envdata.weather_daily_rollup t) as "weatherDaily",
      (select md5(string_agg(t::text, '|' order by location_id, local_date, pollen_type))
        from envdata.pollen_daily_rollup t) as "pollenDaily"`.execute(db);
  return rows[0]!;
}

/** Fact rows in the warehouse, all tables together (what `expectedRows` of a plan counts). */
export function factRows(digest: WarehouseDigest): number {
  return digest.weatherRows + digest.pollenRows + digest.speciesRows;
}
