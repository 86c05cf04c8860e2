import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import * as migration from '../../migrations/2026_11_27_0036_snapshot_partitions.js';
import type { Database } from '../../src/warehouse/schema.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

/** Every comment on a view over the snapshot tables and on its columns, and who may read it. */
async function viewContract(db: Kysely<Database>) {
  const { rows } = await sql<{ view: string; column: string; text: string }>`
    select c.oid::regclass::text as view, coalesce(a.attname, '') as column,
      d.description as text
    from pg_class c
    join pg_description d on d.classoid = 'pg_class'::regclass and d.objoid = c.oid
    left join pg_attribute a on a.attrelid = c.oid and a.attnum = d.objsubid and d.objsubid > 0
    where c.relnamespace = 'analytics'::regnamespace and c.relkind = 'v'
    union all
    select c.oid::regclass::text, '(grant)',
      coalesce(has_table_privilege('envdata_bi', c.oid, 'SELECT')::text, '')
    from pg_class c where c.relnamespace = 'analytics'::regnamespace and c.relkind = 'v'
    order by 1, 2, 3`.execute(db);
  return rows;
}

/** The snapshot rows, in one order, whatever their tables are. */
async function snapshotRows(db: Kysely<Database>) {
  const { rows } = await sql<{ row: string }>`
    select format('%s', p) as row from envdata.pollen_snapshot p
    union all select format('%s', s) from envdata.pollen_species_snapshot s
    union all select format('%s', w) from envdata.weather_snapshot w
    order by 1`.execute(db);
  return rows.map((r) => r.row);
}

describe('migration 0036 (snapshot partitions)', () => {
  it('moves every snapshot into monthly partitions and keeps the views over them, their comments and grants', async () => {
    const db = wh.app.db;
    const rome = await wh.addLocation({ name: 'Rome', lat: 41.9, lng: 12.5 });
    await db.transaction().execute((trx) => migration.down(trx));
    const contract = await viewContract(db);
    expect(contract.filter((r) => r.view === 'analytics.pollen_forecast').length).toBeGreaterThan(
      5,
    );
    const id = rome.locationId;
    await sql`
      insert into envdata.pollen_species (category, name) values ('tree', 'Oak')
      on conflict do nothing`.execute(db);
    await sql`
      insert into envdata.pollen_snapshot (location_id, product, fetched_at, valid_at, pollen_type, count, risk_level)
      values (${id}, 'forecast_48h', '2025-01-31T23:30:00Z', '2025-02-01T01:00:00Z', 'tree', 3, 'Low'),
             (${id}, 'forecast_48h', '2025-03-01T00:00:00Z', '2025-03-01T01:00:00Z', 'tree', 4, 'Low')`.execute(
      db,
    );
    await sql`
      insert into envdata.pollen_species_snapshot (location_id, product, fetched_at, valid_at, species_id, count)
      select ${id}, 'latest', '2025-02-10T02:00:00Z', '2025-02-10T01:00:00Z', species_id, 7
      from envdata.pollen_species where name = 'Oak'`.execute(db);
    await sql`
      insert into envdata.weather_snapshot (location_id, product, fetched_at, valid_at, temperature_c)
      values (${id}, 'latest', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', 9.5)`.execute(db);
    const before = await snapshotRows(db);

    await db.transaction().execute((trx) => migration.up(trx));

    expect(await snapshotRows(db)).toEqual(before);
    expect(await viewContract(db)).toEqual(contract);
    const { rows: partitions } = await sql<{ partition: string; rows: number }>`
      select c.relname as partition, (xpath('/row/n/text()',
        query_to_xml(format('select count(*) as n from envdata.%I', c.relname), false, true, '')))[1]::text::int
        as rows
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent in ('envdata.pollen_snapshot'::regclass,
        'envdata.pollen_species_snapshot'::regclass, 'envdata.weather_snapshot'::regclass)
      order by 1`.execute(db);
    // Fetch months, UTC: the January fetch of a February hour is in January; none in between.
    expect(partitions).toEqual([
      { partition: 'pollen_snapshot_m2025_01', rows: 1 },
      { partition: 'pollen_snapshot_m2025_03', rows: 1 },
      { partition: 'pollen_species_snapshot_m2025_02', rows: 1 },
      { partition: 'weather_snapshot_m2025_01', rows: 1 },
    ]);
    // Stored by hand, not by a sync: made current as a sync's stores would (migration 0040).
    await sql`select envdata.rebuild_current_snapshots()`.execute(db);
    const { rows: forecast } = await sql<{ count: number }>`
      select count from analytics.pollen_forecast where location_id = ${id}`.execute(db);
    expect(forecast).toEqual([{ count: 4 }]);
  });
});
