import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DATASET_DEFINITIONS, datasetDefinition } from '../../src/datasets/registry.js';
import { DATASETS } from '../../src/types.js';
import { SNAPSHOT_PRODUCTS } from '../../src/datasets/snapshot-products.js';
import { HISTORY_STARTS } from '../../src/datasets/dataset-coverage.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

async function relationExists(name: string): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`
    select to_regclass(${name}) is not null as found`.execute(wh.app.db);
  return rows[0]!.found;
}

describe('the dataset registry', () => {
  it('names exactly the datasets the migrated warehouse knows (envdata.dataset)', async () => {
    const { rows } = await sql<{ name: string }>`
      select unnest(enum_range(null::envdata.dataset))::text as name`.execute(wh.app.db);
    expect([...DATASETS].sort()).toEqual(rows.map((r) => r.name).sort());
    expect(DATASETS).toEqual(DATASET_DEFINITIONS.map((d) => d.name));
  });

  it.each(DATASETS)('%s: every table and view its definition names exists', async (name) => {
    const definition = datasetDefinition(name);
    const tables = [
      ...definition.factTables.map((t) => `envdata.${t.name}`),
      ...definition.snapshots.tables.map((t) => `envdata.${t.name}`),
      `envdata.${definition.rollup.table}`,
      definition.rollup.view,
    ];
    for (const table of tables) expect(await relationExists(table), table).toBe(true);
  });

  it('derives the plan, the sync and the coverage from the definitions', () => {
    for (const definition of DATASET_DEFINITIONS) {
      expect(HISTORY_STARTS[definition.name]).toEqual(definition.historyStart);
      expect(SNAPSHOT_PRODUCTS.filter((p) => p.dataset === definition.name)).toEqual(
        definition.snapshots.sources.map((s) => ({ product: s.product, dataset: definition.name })),
      );
    }
    expect(SNAPSHOT_PRODUCTS).toHaveLength(5);
  });

  it('estimates rows per hour as they land: weather 1, pollen 3 types plus the region species', () => {
    expect(datasetDefinition('weather').rowsPerHour({ pollenRegion: 'europe' })).toBe(1);
    expect(datasetDefinition('pollen').rowsPerHour({ pollenRegion: 'europe' })).toBe(18);
    expect(datasetDefinition('pollen').rowsPerHour({ pollenRegion: 'rest_of_world' })).toBe(3);
    expect(datasetDefinition('pollen').rowsPerHour({ pollenRegion: 'south_america_oceania' })).toBe(
      0,
    );
  });
});
