import type { Kysely, Transaction } from 'kysely';
import type { PollenSpeciesRow, PollenTypeRow } from '../normalize/fact-rows.js';
import type { LocatedRows } from './fact-table.js';
import { POLLEN_HOURLY, pollenSpeciesHourly } from './fact-tables.js';
import type { Database } from './schema.js';
import type { SpeciesIds } from './species-ids.js';
import { upsertFacts } from './upsert-facts.js';

/**
 * Upserts pollen by type (`upsertFacts` into `POLLEN_HOURLY`); identical rows write nothing.
 * Rows must be unique per (location, hour, type). Returns the rows written.
 */
export function upsertPollenHourly(
  db: Kysely<Database> | Transaction<Database>,
  groups: readonly LocatedRows<PollenTypeRow>[],
): Promise<number> {
  return upsertFacts(db, POLLEN_HOURLY, groups);
}

/**
 * Upserts pollen by species (`upsertFacts` into `pollenSpeciesHourly`); identical rows write
 * nothing. `speciesIds` must already hold every (category, species) of the rows.
 */
export function upsertPollenSpeciesHourly(
  db: Kysely<Database> | Transaction<Database>,
  groups: readonly LocatedRows<PollenSpeciesRow>[],
  speciesIds: SpeciesIds,
): Promise<number> {
  return upsertFacts(db, pollenSpeciesHourly(speciesIds), groups);
}
