import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ensureMonthPartitions } from '../../src/warehouse/month-partitions.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

describe('ensureMonthPartitions', () => {
  it('creates the UTC month of the fetch once, whichever of many processes asks first', async () => {
    // 2025-04-30 23:30 in UTC is already May in Tokyo, still April in UTC.
    const at = new Date('2025-04-30T23:30:00Z');
    await Promise.all(
      Array.from({ length: 8 }, () =>
        ensureMonthPartitions(wh.app.db, ['pollen_snapshot', 'pollen_species_snapshot'], at),
      ),
    );
    const { rows } = await sql<{ name: string; from_at: Date; to_at: Date }>`
      select c.relname as name,
        (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz
          as from_at,
        (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz
          as to_at
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent in ('envdata.pollen_snapshot'::regclass,
        'envdata.pollen_species_snapshot'::regclass)
      order by 1`.execute(wh.app.db);
    const april = {
      from_at: new Date('2025-04-01T00:00:00Z'),
      to_at: new Date('2025-05-01T00:00:00Z'),
    };
    expect(rows).toEqual([
      { name: 'pollen_snapshot_m2025_04', ...april },
      { name: 'pollen_species_snapshot_m2025_04', ...april },
    ]);
  });
});
