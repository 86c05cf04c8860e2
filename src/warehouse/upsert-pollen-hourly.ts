import { sql, type Kysely, type Transaction } from 'kysely';
import type { PollenSpeciesRow, PollenTypeRow } from '../normalize/fact-rows.js';
import type { Database } from './schema.js';
import type { SpeciesIds } from './species-ids.js';
import type { LocatedRows } from './upsert-weather-hourly.js';

/**
 * Upserts pollen by type in one set-based statement; identical rows write nothing.
 * Rows must be unique per (location, hour, type). Returns the rows written.
 */
export async function upsertPollenHourly(
  db: Kysely<Database> | Transaction<Database>,
  groups: readonly LocatedRows<PollenTypeRow>[],
): Promise<number> {
  const n = groups.reduce((sum, g) => sum + g.rows.length, 0);
  if (n === 0) return 0;
  const locationIds = new Array<number>(n);
  const observedAt = new Array<Date>(n);
  const types = new Array<string>(n);
  const counts = new Array<number | null>(n);
  const risks = new Array<string | null>(n);
  let i = 0;
  for (const { locationId, rows } of groups) {
    for (const r of rows) {
      locationIds[i] = locationId;
      observedAt[i] = r.observedAt;
      types[i] = r.pollenType;
      counts[i] = r.count;
      risks[i] = r.riskLevel;
      i++;
    }
  }
  const result = await sql`
    insert into envdata.pollen_hourly as t (location_id, observed_at, pollen_type, count, risk_level)
    select * from unnest(${locationIds}::int[], ${observedAt}::timestamptz[],
      ${types}::envdata.pollen_type[], ${counts}::int[], ${risks}::envdata.risk_level[])
    on conflict (location_id, observed_at, pollen_type) do update
      set count = excluded.count, risk_level = excluded.risk_level
    where (t.count, t.risk_level) is distinct from (excluded.count, excluded.risk_level)
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * Upserts pollen by species in one set-based statement; identical rows write nothing.
 * `speciesIds` must already hold every (category, species) of the rows.
 */
export async function upsertPollenSpeciesHourly(
  db: Kysely<Database> | Transaction<Database>,
  groups: readonly LocatedRows<PollenSpeciesRow>[],
  speciesIds: SpeciesIds,
): Promise<number> {
  const n = groups.reduce((sum, g) => sum + g.rows.length, 0);
  if (n === 0) return 0;
  const locationIds = new Array<number>(n);
  const observedAt = new Array<Date>(n);
  const species = new Array<number>(n);
  const counts = new Array<number>(n);
  const risks = new Array<string | null>(n);
  let i = 0;
  for (const { locationId, rows } of groups) {
    for (const r of rows) {
      locationIds[i] = locationId;
      observedAt[i] = r.observedAt;
      species[i] = speciesIds.require(r.category, r.species);
      counts[i] = r.count;
      risks[i] = r.riskLevel;
      i++;
    }
  }
  const result = await sql`
    insert into envdata.pollen_species_hourly as t (location_id, observed_at, species_id, count, risk_level)
    select * from unnest(${locationIds}::int[], ${observedAt}::timestamptz[],
      ${species}::smallint[], ${counts}::int[], ${risks}::envdata.risk_level[])
    on conflict (location_id, observed_at, species_id) do update
      set count = excluded.count, risk_level = excluded.risk_level
    where (t.count, t.risk_level) is distinct from (excluded.count, excluded.risk_level)
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
