import { sql, type Kysely } from 'kysely';
import type { SpeciesCategory } from '../types.js';
import type { Database } from './schema.js';

/**
 * The ids of `envdata.pollen_species`, cached: species names are stored once and fact rows
 * carry a smallint. Ids never change, so the cache never goes stale.
 */
export class SpeciesIds {
  private readonly ids = new Map<string, number>();

  /** Makes sure every (category, name) has an id; new species are inserted (race-safe). */
  async resolve(
    db: Kysely<Database>,
    species: Iterable<{ category: SpeciesCategory; species: string }>,
  ): Promise<void> {
    const missing = new Map<string, { category: SpeciesCategory; name: string }>();
    for (const s of species) {
      const key = keyOf(s.category, s.species);
      if (!this.ids.has(key)) missing.set(key, { category: s.category, name: s.species });
    }
    if (missing.size === 0) return;
    const categories = [...missing.values()].map((m) => m.category);
    const names = [...missing.values()].map((m) => m.name);
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
    for (const row of rows) this.ids.set(keyOf(row.category, row.name), row.species_id);
  }

  /** The id of a species already resolved. */
  require(category: SpeciesCategory, name: string): number {
    const id = this.ids.get(keyOf(category, name));
    if (id === undefined) throw new Error(`species ${category}/${name} was not resolved first`);
    return id;
  }
}

function keyOf(category: SpeciesCategory, name: string): string {
  return `${category}\u0000${name}`;
}
