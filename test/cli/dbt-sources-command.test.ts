import { ensureMonthPartitions } from '../../src/warehouse/month-partitions.js';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { ANALYTICS_VIEW_KEYS } from '../../src/warehouse/analytics-view-keys.js';
import type { DbtSources } from '../../src/warehouse/dbt-sources.js';
import { ensureBiRole } from '../../src/warehouse/ensure-bi-role.js';
import { refreshDailyRollups } from '../../src/warehouse/refresh-daily-rollups.js';
import { hoursBetween, pollenHistoryBody, weatherHistoryBody } from '../fixtures/payload-bodies.js';
import { storeWeatherForecast } from '../fixtures/weather-forecast.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
/** Two days of both datasets for both locations, forecasts fetched on the first day. */
const DATA = { from: new Date('2024-04-01T00:00:00Z'), to: new Date('2024-04-03T00:00:00Z') };
const FETCHED = new Date('2024-04-01T06:00:00Z');

/** A session of envdata_bi, as a BI tool or dbt connects. */
let bi: pg.Client;
let sources: DbtSources;
let stdout: string;

beforeAll(async () => {
  const hours = hoursBetween(DATA.from.toISOString(), DATA.to.toISOString());
  const writer = new FactWriter(wh.app.db, { archiveRaw: false });
  for (const place of [
    { name: 'Vienna', lat: 48.2082, lng: 16.3738, countryCode: 'AT' },
    { name: 'Lyon', lat: 45.764, lng: 4.8357, countryCode: 'FR' },
  ]) {
    const { locationId } = await wh.addLocation(place);
    await writer.land([
      await wh.landingOf('weather', locationId, DATA, weatherHistoryBody(hours)),
      await wh.landingOf('pollen', locationId, DATA, pollenHistoryBody(hours)),
    ]);
    // Revised by a later answer: the revisions views have rows too.
    await writer.land([
      await wh.landingOf('weather', locationId, DATA, weatherHistoryBody(hours, 1)),
      await wh.landingOf('pollen', locationId, DATA, pollenHistoryBody(hours, 1)),
    ]);
    await storeWeatherForecast(wh.app.db, locationId, FETCHED, () => 12);
    await ensureMonthPartitions(
      wh.app.db,
      ['pollen_snapshot', 'pollen_species_snapshot', 'weather_snapshot'],
      FETCHED,
    );
    await sql`
      insert into envdata.pollen_snapshot
        (location_id, product, fetched_at, valid_at, pollen_type, count, risk_level)
      select ${locationId}, p.product::envdata.snapshot_product, ${FETCHED}::timestamptz,
        h, t.type::envdata.pollen_type, 3, 'Low'
      from (values ('forecast_48h'), ('latest')) p(product),
        generate_series(${FETCHED}::timestamptz, ${FETCHED}::timestamptz + interval '5 hours',
          interval '1 hour') h,
        (values ('tree'), ('grass'), ('weed')) t(type)`.execute(wh.app.db);
    await sql`
      insert into envdata.pollen_species_snapshot
        (location_id, product, fetched_at, valid_at, species_id, count)
      select ${locationId}, 'forecast_48h', ${FETCHED}::timestamptz, h, s.species_id, 2
      from envdata.pollen_species s,
        generate_series(${FETCHED}::timestamptz, ${FETCHED}::timestamptz + interval '5 hours',
          interval '1 hour') h`.execute(wh.app.db);
    await sql`
      insert into envdata.weather_snapshot (location_id, product, fetched_at, valid_at, temperature_c)
      values (${locationId}, 'latest', ${FETCHED}, ${FETCHED}, 11)`.execute(wh.app.db);
  }
  // Stored by hand, not by a sync: made current as a sync's stores would.
  await sql`select envdata.rebuild_current_snapshots()`.execute(wh.app.db);
  await refreshDailyRollups(wh.app.db);
  // As `envdata bi-role` does (no login: the session below switches to the role).
  await ensureBiRole(wh.app.db);
  bi = new pg.Client({ connectionString: wh.env.databaseUrl });
  await bi.connect();
  await bi.query('set role envdata_bi');

  const run = await runCliInProcess(['dbt-sources'], wh.env.cliEnv());
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  stdout = run.stdout;
  // No anchors and aliases: each table reads on its own.
  sources = parse(stdout, { maxAliasCount: 0 }) as DbtSources;
});

afterAll(async () => {
  await bi?.end();
});

const quoted = (name: string) => pg.escapeIdentifier(name);
const tables = () => sources.sources[0].tables;

/** Rows of `text` run as envdata_bi. */
async function asBi<Row extends pg.QueryResultRow>(text: string): Promise<Row[]> {
  const { rows } = await bi.query<Row & { who?: string }>(text);
  const { rows: who } = await bi.query<{ role: string }>('select current_user as role');
  expect(who[0]?.role).toBe('envdata_bi');
  return rows;
}

describe('envdata dbt-sources', () => {
  it('prints one dbt source, envdata, for schema analytics', () => {
    expect(stdout).toMatch(/^# Written by `envdata dbt-sources`/);
    expect(sources.version).toBe(2);
    expect(sources.sources).toHaveLength(1);
    expect(sources.sources[0]).toMatchObject({ name: 'envdata', schema: 'analytics' });
  });

  it('names every view of analytics, and each with exactly its columns, as envdata_bi sees them', async () => {
    const columns = await asBi<{ table_name: string; column_name: string }>(`
      select table_name::text, column_name::text from information_schema.columns
      where table_schema = 'analytics' order by table_name collate "C", ordinal_position`);
    const seen = new Map<string, string[]>();
    for (const c of columns)
      seen.set(c.table_name, [...(seen.get(c.table_name) ?? []), c.column_name]);
    const views = await asBi<{ table_name: string }>(`
      select table_name::text from information_schema.views where table_schema = 'analytics'`);
    expect(tables().map((t) => t.name)).toEqual(
      views.map((v) => v.table_name).sort((a, b) => (a < b ? -1 : 1)),
    );
    for (const table of tables()) {
      expect(
        table.columns.map((c) => c.name),
        table.name,
      ).toEqual(seen.get(table.name));
    }
  });

  it('describes each view and column with its comment in the database, and what has none not at all', async () => {
    const { rows } = await sql<{ view: string; column: string | null; comment: string | null }>`
      select c.relname::text as view, null::text as column,
        obj_description(c.oid, 'pg_class') as comment
      from pg_class c where c.relnamespace = 'analytics'::regnamespace and c.relkind = 'v'
      union all
      select c.relname, a.attname::text, col_description(c.oid, a.attnum)
      from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attnum > 0
      where c.relnamespace = 'analytics'::regnamespace and c.relkind = 'v'`.execute(wh.app.db);
    const comment = new Map(rows.map((r) => [`${r.view}.${r.column ?? ''}`, r.comment]));
    let described = 0;
    for (const table of tables()) {
      expect(table.description, table.name).toBe(comment.get(`${table.name}.`) ?? undefined);
      expect('description' in table).toBe(comment.get(`${table.name}.`) != null);
      for (const column of table.columns) {
        const expected = comment.get(`${table.name}.${column.name}`) ?? undefined;
        expect(column.description, `${table.name}.${column.name}`).toBe(expected);
        expect('description' in column).toBe(expected !== undefined);
        if (expected !== undefined) described += 1;
      }
    }
    // The forecast, latest and hour-status views are commented column by column.
    expect(described).toBeGreaterThan(50);
  });

  it('declares a key for every view, from the one table in src/', () => {
    expect(Object.keys(ANALYTICS_VIEW_KEYS).sort()).toEqual(tables().map((t) => t.name));
    for (const table of tables()) {
      expect(table.config?.meta?.key, table.name).toEqual(ANALYTICS_VIEW_KEYS[table.name]);
      const tested = table.columns.filter((c) => c.data_tests).map((c) => c.name);
      if (table.config?.meta?.tests_left_off) {
        expect(tested, table.name).toEqual([]);
      } else {
        expect(tested, table.name).toEqual(
          table.columns.map((c) => c.name).filter((c) => table.config?.meta?.key.includes(c)),
        );
      }
      for (const column of table.columns.filter((c) => c.data_tests)) {
        expect(column.data_tests, `${table.name}.${column.name}`).toEqual(
          table.config?.meta?.key.length === 1 ? ['not_null', 'unique'] : ['not_null'],
        );
      }
    }
    expect(tables().find((t) => t.name === 'weather_latest')?.columns[0]).toMatchObject({
      name: 'location_id',
      data_tests: ['not_null', 'unique'],
    });
  });

  it('holds every declared key in a filled warehouse: rows there, none null, none twice', async () => {
    for (const table of tables()) {
      const key = table.config!.meta!.key.map(quoted).join(', ');
      const view = `analytics.${quoted(table.name)}`;
      const [counted] = await asBi<{ rows: number; nulls: number }>(`
        select count(*)::int as rows,
          count(*) filter (where ${table.config!.meta!.key.map((c) => `${quoted(c)} is null`).join(' or ')})::int as nulls
        from ${view}`);
      expect(counted, table.name).toMatchObject({ nulls: 0 });
      expect(counted!.rows, `${table.name} has rows`).toBeGreaterThan(0);
      const twice = await asBi(`select ${key} from ${view} group by ${key} having count(*) > 1`);
      expect(twice, table.name).toEqual([]);
    }
  });

  it('passes its own tests as dbt runs them, as envdata_bi', async () => {
    let run = 0;
    for (const table of tables()) {
      for (const column of table.columns) {
        const [view, name] = [`analytics.${quoted(table.name)}`, quoted(column.name)];
        for (const test of column.data_tests ?? []) {
          // dbt's not_null and unique: a failing row each.
          const failing =
            test === 'not_null'
              ? await asBi(`select ${name} from ${view} where ${name} is null`)
              : await asBi(
                  `select ${name} from ${view} where ${name} is not null group by ${name} having count(*) > 1`,
                );
          expect(failing, `${test} on ${table.name}.${column.name}`).toEqual([]);
          run += 1;
        }
      }
    }
    expect(run).toBeGreaterThan(30);
  });

  it('gives the history views the freshness of the ledger, by a query envdata_bi may run', async () => {
    const byQuery = tables().filter((t) => t.config?.loaded_at_query);
    expect(byQuery.map((t) => t.name).sort()).toEqual([
      'pollen_daily',
      'pollen_hourly',
      'pollen_species_hourly',
      'weather_daily',
      'weather_hourly',
    ]);
    for (const table of byQuery) {
      expect(table.config?.freshness).toEqual({
        warn_after: { count: 36, period: 'hour' },
        error_after: { count: 72, period: 'hour' },
      });
      expect(table.config?.loaded_at_field).toBeUndefined();
      // As dbt's collect_freshness_custom_sql wraps it.
      const rows = await asBi<{ max_loaded_at: Date | null }>(`
        with source_query as (${table.config!.loaded_at_query!})
        select (select * from source_query) as max_loaded_at, current_timestamp as snapshotted_at`);
      // Complete through the last hour landed at both locations.
      expect(rows, table.name).toEqual([
        { max_loaded_at: new Date('2024-04-02T23:00:00Z'), snapshotted_at: expect.any(Date) },
      ]);
    }
  });

  it('gives the forecast and latest views the freshness of their fetch', async () => {
    const byField = tables().filter((t) => t.config?.loaded_at_field);
    expect(byField.map((t) => t.name).sort()).toEqual([
      'pollen_forecast',
      'pollen_latest',
      'pollen_species_forecast',
      'weather_forecast',
      'weather_latest',
    ]);
    for (const table of byField) {
      // As dbt's collect_freshness.
      const rows = await asBi<{ max_loaded_at: Date | null }>(`
        select max(${table.config!.loaded_at_field!}) as max_loaded_at
        from analytics.${quoted(table.name)}`);
      expect(rows, table.name).toEqual([{ max_loaded_at: FETCHED }]);
    }
  });
});
