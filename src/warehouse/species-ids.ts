import { sql, type Kysely } from 'kysely';
import type { SpeciesCategory } from '../types.js';
import type { Database } from './schema.js';

/**
 * The ids of `envdata.pollen_species`, cached: species names are stored once and fact rows
 * carry a smallint. Ids never change, so the cache never goes stale.
 */
export class SpeciesIds {
  /** category → name → id: two lookups per fact row, no key string built per row. */
  private readonly ids = new Map<SpeciesCategory, Map<string, number>>();

  /** Makes sure every (category, name) has an id; new species are inserted (race-safe). */
  async resolve(
    db: Kysely<Database>,
    species: Iterable<{ category: SpeciesCategory; species: string }>,
  ): Promise<void> {
    const missing = new Map<SpeciesCategory, Set<string>>();
    for (const s of species) {
      if (this.ids.get(s.category)?.has(s.species)) continue;
      let names = missing.get(s.category);
      if (!names) missing.set(s.category, (names = new Set()));
      names.add(s.species);
    }
    if (missing.size === 0) return;
    const categories: SpeciesCategory[] = [];
    const names: string[] = [];
    for (const [category, set] of missing) {
      for (const name of set) {
        categories.push(category);
        names.push(name);
      }
    }
    await sql`
      insert into envdata.pollen_species (category, name)
      select * from unnest(${categories}::envdata.species_category[], ${names}::text[])
      on conflict (category, name) do nothing
    `.execute(db);
    const rows = await db
      .selectFrom('pollen_species')
      .select(['species_id', 'category', 'name'])
      .where('name', 'in', names)
      .execute();
    for (const row of rows) {
      let byName = this.ids.get(row.category);
      if (!byName) this.ids.set(row.category, (byName = new Map()));
      byName.set(row.name, row.species_id);
    }
  }

  /** The id of a species already resolved. */
  require(category: SpeciesCategory, name: string): number {
    const id = this.ids.get(category)?.get(name);
    if (id === undefined) throw new Error(`species ${category}/${name} was not resolved first`);
    return id;
  }
}
