import type { PollenSpeciesRow, PollenTypeRow } from './pollen-rows.js';
import { declareTables } from '../../warehouse/declare-tables.js';

/**
 * `envdata.pollen_hourly` (one row per location, hour and pollen type) and
 * `envdata.pollen_snapshot` (latest readings and forecasts by type, as fetched): their columns.
 */
const POLLEN = declareTables<PollenTypeRow>()({
  fact: 'pollen_hourly',
  snapshot: 'pollen_snapshot',
  key: [{ name: 'pollen_type', type: 'envdata.pollen_type', value: (r) => r.pollenType }],
  columns: [
    { name: 'count', type: 'int', value: (r) => r.count },
    { name: 'risk_level', type: 'envdata.risk_level', value: (r) => r.riskLevel },
  ],
});

/**
 * `envdata.pollen_species_hourly` (one row per location, hour and species, `Others` included)
 * and `envdata.pollen_species_snapshot` (latest readings and forecasts by species, as fetched):
 * their columns, the species by the id the writer's `species` resolved for it (`SpeciesIds`),
 * new species getting theirs before the transaction.
 */
const POLLEN_SPECIES = declareTables<PollenSpeciesRow>()({
  fact: 'pollen_species_hourly',
  snapshot: 'pollen_species_snapshot',
  key: ({ species }) => [
    { name: 'species_id', type: 'smallint', value: (r) => species.require(r.category, r.species) },
  ],
  columns: [
    { name: 'count', type: 'int', value: (r) => r.count },
    { name: 'risk_level', type: 'envdata.risk_level', value: (r) => r.riskLevel },
  ],
  prepare: (db, rows, { species }) => species.resolve(db, rows),
});

/** `envdata.pollen_hourly`: one row per location, hour and pollen type. */
export const POLLEN_HOURLY = POLLEN.fact;

/** `envdata.pollen_species_hourly`: one row per location, hour and species (`Others` included). */
export const POLLEN_SPECIES_HOURLY = POLLEN_SPECIES.fact;

/** `envdata.pollen_snapshot`: latest readings and forecasts by type, as fetched. */
export const POLLEN_SNAPSHOT = POLLEN.snapshot;

/** `envdata.pollen_species_snapshot`: latest readings and forecasts by species, as fetched. */
export const POLLEN_SPECIES_SNAPSHOT = POLLEN_SPECIES.snapshot;
