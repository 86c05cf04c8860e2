import { sql, type Kysely, type Transaction } from 'kysely';
import type { PollenSpeciesRow, PollenTypeRow } from './fact-rows.js';
import type { Database } from './schema.js';
import type { SpeciesIds } from './species-ids.js';
import {
  anyStored,
  ArrayLiteral,
  insertOrUpsert,
  storedRanges,
  type LocatedRows,
} from './upsert-weather-hourly.js';

/** The two pollen fact tables differ only in their third key column. */
interface PollenFactTable {
  readonly table: 'pollen_hourly' | 'pollen_species_hourly';
  readonly key: 'pollen_type' | 'species_id';
  readonly keyType: 'envdata.pollen_type' | 'smallint';
}

interface PollenFact {
  readonly observedAt: Date;
  readonly count: number | null;
  readonly riskLevel: string | null;
}

/**
 * One set-based insert-or-upsert (see `insertOrUpsert`) into a pollen fact table; identical rows
 * write nothing. Rows must be unique per (location, hour, key). Returns the rows written.
 */
async function upsertPollenFacts<Row extends PollenFact>(
  db: Kysely<Database> | Transaction<Database>,
  target: PollenFactTable,
  groups: readonly LocatedRows<Row>[],
  keyOf: (row: Row, keys: ArrayLiteral) => void,
): Promise<number> {
  let n = 0;
  for (const g of groups) n += g.rows.length;
  if (n === 0) return 0;
  const locationIds = new ArrayLiteral();
  const observedAt = new ArrayLiteral();
  const keys = new ArrayLiteral();
  const counts = new ArrayLiteral();
  const risks = new ArrayLiteral();
  for (const { locationId, rows } of groups) {
    for (const r of rows) {
      locationIds.number(locationId);
      observedAt.instant(r.observedAt);
      keyOf(r, keys);
      counts.number(r.count);
      risks.string(r.riskLevel);
    }
  }
  // Table and column names are the constants above, never input.
  const table = sql.raw(`envdata.${target.table}`);
  const key = sql.raw(target.key);
  const keyType = sql.raw(target.keyType);
  // unnest() in the select list: see upsertWeatherHourly.
  const rows = sql`
    select location_id, to_timestamp(observed_at) as observed_at, ${key}, count, risk_level
    from (
      select unnest(${locationIds.build()}::int[]) as location_id,
        unnest(${observedAt.build()}::float8[]) as observed_at,
        unnest(${keys.build()}::${keyType}[]) as ${key},
        unnest(${counts.build()}::int[]) as count,
        unnest(${risks.build()}::envdata.risk_level[]) as risk_level
    ) r`;
  const stored = storedRanges(groups);
  return insertOrUpsert(db, {
    probe: anyStored(`envdata.${target.table}`, stored),
    insert: sql`insert into ${table} (location_id, observed_at, ${key}, count, risk_level) ${rows}`,
    upsert: sql`
      with u as materialized (${rows}),
      stored as materialized (
        select x.* from ${stored.ranges}
        cross join lateral (
          select s.location_id, s.observed_at, s.${key}, s.count, s.risk_level
          from ${table} s
          where s.location_id = g.location_id
            and s.observed_at between to_timestamp(g.first_at) and to_timestamp(g.last_at)
            and s.observed_at ${stored.span}
          offset 0) x
      )
      insert into ${table} as t (location_id, observed_at, ${key}, count, risk_level)
      select * from u
      where not exists (
        select from stored s
        where s.location_id = u.location_id and s.observed_at = u.observed_at
          and s.${key} = u.${key}
          and (s.count, s.risk_level) is not distinct from (u.count, u.risk_level))
      on conflict (location_id, observed_at, ${key}) do update
        set count = excluded.count, risk_level = excluded.risk_level
      where (t.count, t.risk_level) is distinct from (excluded.count, excluded.risk_level)`,
  });
}

/**
 * Upserts pollen by type set-based; identical rows write nothing. Rows must be unique per
 * (location, hour, type). Returns the rows written.
 */
export function upsertPollenHourly(
  db: Kysely<Database> | Transaction<Database>,
  groups: readonly LocatedRows<PollenTypeRow>[],
): Promise<number> {
  return upsertPollenFacts(
    db,
    { table: 'pollen_hourly', key: 'pollen_type', keyType: 'envdata.pollen_type' },
    groups,
    (r, keys) => keys.string(r.pollenType),
  );
}

/**
 * Upserts pollen by species set-based; identical rows write nothing. `speciesIds` must already
 * hold every (category, species) of the rows.
 */
export function upsertPollenSpeciesHourly(
  db: Kysely<Database> | Transaction<Database>,
  groups: readonly LocatedRows<PollenSpeciesRow>[],
  speciesIds: SpeciesIds,
): Promise<number> {
  return upsertPollenFacts(
    db,
    { table: 'pollen_species_hourly', key: 'species_id', keyType: 'smallint' },
    groups,
    (r, keys) => keys.number(speciesIds.require(r.category, r.species)),
  );
}
