import { sql, type Kysely, type Transaction } from 'kysely';
import type { PollenSpeciesRow, PollenTypeRow } from '../normalize/fact-rows.js';
import type { Database } from './schema.js';
import type { SpeciesIds } from './species-ids.js';
import {
  anyStored,
  ArrayLiteral,
  insertOrUpsert,
  storedRanges,
  type LocatedRows,
} from './upsert-weather-hourly.js';

/**
 * Upserts pollen by type set-based (see `insertOrUpsert`); identical rows
 * write nothing. Rows must be unique per (location, hour, type). Returns the rows written.
 */
export async function upsertPollenHourly(
  db: Kysely<Database> | Transaction<Database>,
  groups: readonly LocatedRows<PollenTypeRow>[],
): Promise<number> {
  let n = 0;
  for (const g of groups) n += g.rows.length;
  if (n === 0) return 0;
  const locationIds = new ArrayLiteral();
  const observedAt = new ArrayLiteral();
  const types = new ArrayLiteral();
  const counts = new ArrayLiteral();
  const risks = new ArrayLiteral();
  for (const { locationId, rows } of groups) {
    for (const r of rows) {
      locationIds.number(locationId);
      observedAt.instant(r.observedAt);
      types.string(r.pollenType);
      counts.number(r.count);
      risks.string(r.riskLevel);
    }
  }
  // unnest() in the select list: see upsertWeatherHourly.
  const rows = sql`
    select location_id, to_timestamp(observed_at) as observed_at, pollen_type, count, risk_level
    from (
      select unnest(${locationIds.build()}::int[]) as location_id,
        unnest(${observedAt.build()}::float8[]) as observed_at,
        unnest(${types.build()}::envdata.pollen_type[]) as pollen_type,
        unnest(${counts.build()}::int[]) as count,
        unnest(${risks.build()}::envdata.risk_level[]) as risk_level
    ) r`;
  const stored = storedRanges(groups);
  return insertOrUpsert(db, {
    probe: anyStored('envdata.pollen_hourly', stored),
    insert: sql`insert into envdata.pollen_hourly (location_id, observed_at, pollen_type, count, risk_level) ${rows}`,
    upsert: sql`
      with u as materialized (${rows}),
      stored as materialized (
        select x.* from ${stored.ranges}
        cross join lateral (
          select s.location_id, s.observed_at, s.pollen_type, s.count, s.risk_level
          from envdata.pollen_hourly s
          where s.location_id = g.location_id
            and s.observed_at between to_timestamp(g.first_at) and to_timestamp(g.last_at)
            and s.observed_at ${stored.span}
          offset 0) x
      )
      insert into envdata.pollen_hourly as t (location_id, observed_at, pollen_type, count, risk_level)
      select * from u
      where not exists (
        select from stored s
        where s.location_id = u.location_id and s.observed_at = u.observed_at
          and s.pollen_type = u.pollen_type
          and (s.count, s.risk_level) is not distinct from (u.count, u.risk_level))
      on conflict (location_id, observed_at, pollen_type) do update
        set count = excluded.count, risk_level = excluded.risk_level
      where (t.count, t.risk_level) is distinct from (excluded.count, excluded.risk_level)`,
  });
}

/**
 * Upserts pollen by species set-based (see `insertOrUpsert`); identical rows
 * write nothing. `speciesIds` must already hold every (category, species) of the rows.
 */
export async function upsertPollenSpeciesHourly(
  db: Kysely<Database> | Transaction<Database>,
  groups: readonly LocatedRows<PollenSpeciesRow>[],
  speciesIds: SpeciesIds,
): Promise<number> {
  let n = 0;
  for (const g of groups) n += g.rows.length;
  if (n === 0) return 0;
  const locationIds = new ArrayLiteral();
  const observedAt = new ArrayLiteral();
  const species = new ArrayLiteral();
  const counts = new ArrayLiteral();
  const risks = new ArrayLiteral();
  for (const { locationId, rows } of groups) {
    for (const r of rows) {
      locationIds.number(locationId);
      observedAt.instant(r.observedAt);
      species.number(speciesIds.require(r.category, r.species));
      counts.number(r.count);
      risks.string(r.riskLevel);
    }
  }
  const rows = sql`
    select location_id, to_timestamp(observed_at) as observed_at, species_id, count, risk_level
    from (
      select unnest(${locationIds.build()}::int[]) as location_id,
        unnest(${observedAt.build()}::float8[]) as observed_at,
        unnest(${species.build()}::smallint[]) as species_id,
        unnest(${counts.build()}::int[]) as count,
        unnest(${risks.build()}::envdata.risk_level[]) as risk_level
    ) r`;
  const stored = storedRanges(groups);
  return insertOrUpsert(db, {
    probe: anyStored('envdata.pollen_species_hourly', stored),
    insert: sql`insert into envdata.pollen_species_hourly (location_id, observed_at, species_id, count, risk_level) ${rows}`,
    upsert: sql`
      with u as materialized (${rows}),
      stored as materialized (
        select x.* from ${stored.ranges}
        cross join lateral (
          select s.location_id, s.observed_at, s.species_id, s.count, s.risk_level
          from envdata.pollen_species_hourly s
          where s.location_id = g.location_id
            and s.observed_at between to_timestamp(g.first_at) and to_timestamp(g.last_at)
            and s.observed_at ${stored.span}
          offset 0) x
      )
      insert into envdata.pollen_species_hourly as t (location_id, observed_at, species_id, count, risk_level)
      select * from u
      where not exists (
        select from stored s
        where s.location_id = u.location_id and s.observed_at = u.observed_at
          and s.species_id = u.species_id
          and (s.count, s.risk_level) is not distinct from (u.count, u.risk_level))
      on conflict (location_id, observed_at, species_id) do update
        set count = excluded.count, risk_level = excluded.risk_level
      where (t.count, t.risk_level) is distinct from (excluded.count, excluded.risk_level)`,
  });
}
