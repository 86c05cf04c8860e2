import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ensureBiRole } from '../../src/warehouse/ensure-bi-role.js';
import type { Database } from '../../src/warehouse/schema.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

/** Runs `statement` as envdata_bi; returns the SQLSTATE it failed with, or 'ok'. */
async function asBi(db: Kysely<Database>, statement: string): Promise<string> {
  return db.connection().execute(async (conn) => {
    await sql`set role envdata_bi`.execute(conn);
    try {
      await sql.raw(statement).execute(conn);
      return 'ok';
    } catch (error) {
      return (error as { code?: string }).code ?? 'unknown';
    } finally {
      await sql`reset role`.execute(conn);
    }
  });
}

describe('the envdata_bi role', () => {
  it('reads every analytics view', async () => {
    await ensureBiRole(wh.app.db);
    for (const view of [
      'locations',
      'pollen_hourly',
      'pollen_species_hourly',
      'weather_hourly',
      'pollen_daily',
      'weather_daily',
      'forecast_accuracy',
      'coverage',
    ]) {
      expect(await asBi(wh.app.db, `select * from analytics.${view} limit 1`), view).toBe('ok');
    }
  });

  it('cannot read outside analytics', async () => {
    expect(await asBi(wh.app.db, 'select * from envdata.weather_hourly limit 1')).toBe('42501');
    expect(await asBi(wh.app.db, 'select * from envdata.chunk limit 1')).toBe('42501');
    expect(await asBi(wh.app.db, 'select * from public.envdata_migration limit 1')).toBe('42501');
  });

  it('cannot write anything', async () => {
    expect(
      await asBi(wh.app.db, 'insert into analytics.locations (location_id) values (1)'),
    ).not.toBe('ok');
    expect(await asBi(wh.app.db, 'delete from analytics.weather_hourly')).not.toBe('ok');
    expect(await asBi(wh.app.db, 'create table analytics.mine (x int)')).toBe('42501');
    const { rows } = await sql<{ writable: number }>`
      select count(*)::int as writable from information_schema.tables t
      where t.table_schema = 'analytics'
        and (has_table_privilege('envdata_bi', format('%I.%I', t.table_schema, t.table_name), 'INSERT')
          or has_table_privilege('envdata_bi', format('%I.%I', t.table_schema, t.table_name), 'UPDATE')
          or has_table_privilege('envdata_bi', format('%I.%I', t.table_schema, t.table_name), 'DELETE'))`.execute(
      wh.app.db,
    );
    expect(rows[0]!.writable).toBe(0);
  });
});
