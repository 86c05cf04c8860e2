import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/warehouse/schema.js';

/** The monthly partitions of the snapshot tables, by name (`pollen_snapshot_m2025_01`…). */
export async function snapshotPartitions(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent in ('envdata.pollen_snapshot'::regclass,
      'envdata.pollen_species_snapshot'::regclass, 'envdata.weather_snapshot'::regclass)
    order by 1`.execute(db);
  return rows.map((r) => r.name);
}
