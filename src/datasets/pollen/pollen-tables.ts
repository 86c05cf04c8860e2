import type { Kysely } from 'kysely';
import type { PollenSpeciesRow, PollenTypeRow } from './pollen-rows.js';
import type { FactTable, WriteContext } from '../../warehouse/fact-table.js';
import type { Database } from '../../warehouse/schema.js';
import { defineFactTable, type FactTableSpec } from '../../warehouse/fact-table-spec.js';
import { snapshotStamp, type SnapshotTable } from '../../warehouse/write-snapshot.js';

/** Species rows carry a smallint id: new species get theirs before the transaction. */
const resolveSpecies = (
  db: Kysely<Database>,
  rows: readonly PollenSpeciesRow[],
  { species }: WriteContext,
): Promise<void> => species.resolve(db, rows);

/** The columns of `envdata.pollen_hourly`. */
const POLLEN_HOURLY_SPEC = defineFactTable<PollenTypeRow>({
  table: 'envdata.pollen_hourly',
  key: [{ name: 'pollen_type', type: 'envdata.pollen_type', value: (r) => r.pollenType }],
  columns: [
    { name: 'count', type: 'int', value: (r) => r.count },
    { name: 'risk_level', type: 'envdata.risk_level', value: (r) => r.riskLevel },
  ],
});

/** The id of a (category, species) pair in `envdata.pollen_species`, already resolved. */
export interface SpeciesIdLookup {
  require(category: PollenSpeciesRow['category'], species: string): number;
}

/**
 * `envdata.pollen_species_hourly`: one row per location, hour and species, the species by the
 * id `species` resolved for it (`SpeciesIds`).
 */
function pollenSpeciesHourlySpec(species: SpeciesIdLookup): FactTableSpec<PollenSpeciesRow> {
  let spec = SPECIES_SPECS.get(species);
  if (!spec) {
    spec = defineSpeciesSpec(species);
    SPECIES_SPECS.set(species, spec);
  }
  return spec;
}

/** One spec per writer's species lookup, declared once rather than once per landed batch. */
const SPECIES_SPECS = new WeakMap<SpeciesIdLookup, FactTableSpec<PollenSpeciesRow>>();

function defineSpeciesSpec(species: SpeciesIdLookup): FactTableSpec<PollenSpeciesRow> {
  return defineFactTable<PollenSpeciesRow>({
    table: 'envdata.pollen_species_hourly',
    key: [
      {
        name: 'species_id',
        type: 'smallint',
        value: (r) => species.require(r.category, r.species),
      },
    ],
    columns: [
      { name: 'count', type: 'int', value: (r) => r.count },
      { name: 'risk_level', type: 'envdata.risk_level', value: (r) => r.riskLevel },
    ],
  });
}

/** `envdata.pollen_hourly`: one row per location, hour and pollen type. */
export const POLLEN_HOURLY: FactTable<PollenTypeRow> = {
  name: 'pollen_hourly',
  spec: () => POLLEN_HOURLY_SPEC,
};

/** `envdata.pollen_species_hourly`: one row per location, hour and species (`Others` included). */
export const POLLEN_SPECIES_HOURLY: FactTable<PollenSpeciesRow> = {
  name: 'pollen_species_hourly',
  prepare: resolveSpecies,
  spec: ({ species }) => pollenSpeciesHourlySpec(species),
};

/** `envdata.pollen_snapshot`: latest readings and forecasts by type, as fetched. */
export const POLLEN_SNAPSHOT: SnapshotTable<PollenTypeRow> = {
  name: 'pollen_snapshot',
  async insert(trx, target, rows) {
    const result = await trx
      .insertInto('pollen_snapshot')
      .values(
        rows.map((row) => ({
          ...snapshotStamp(target, row),
          pollen_type: row.pollenType,
          count: row.count,
          risk_level: row.riskLevel,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n);
  },
};

/** `envdata.pollen_species_snapshot`: latest readings and forecasts by species, as fetched. */
export const POLLEN_SPECIES_SNAPSHOT: SnapshotTable<PollenSpeciesRow> = {
  name: 'pollen_species_snapshot',
  prepare: resolveSpecies,
  async insert(trx, target, rows, { species }) {
    const result = await trx
      .insertInto('pollen_species_snapshot')
      .values(
        rows.map((row) => ({
          ...snapshotStamp(target, row),
          species_id: species.require(row.category, row.species),
          count: row.count,
          risk_level: row.riskLevel,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n);
  },
};
