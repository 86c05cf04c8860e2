import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { YearPartitions } from '../../src/warehouse/year-partitions.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

describe('YearPartitions', () => {
  it('creates a year no migration made once, whichever of many processes asks first', async () => {
    // Each its own writer, as workers on several hosts are: none knows what another created.
    const at = new Date('2033-06-01T00:00:00Z');
    await Promise.all(
      Array.from({ length: 8 }, () =>
        new YearPartitions().ensure(wh.app.db, 'weather_hourly', [at]),
      ),
    );
    const { rows } = await sql<{ name: string; bound: string }>`
      select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'envdata.weather_hourly'::regclass and c.relname like '%2033'`.execute(
      wh.app.db,
    );
    expect(rows).toEqual([
      {
        name: 'weather_hourly_y2033',
        bound: "FOR VALUES FROM ('2033-01-01 00:00:00+00') TO ('2034-01-01 00:00:00+00')",
      },
    ]);
  });
});
