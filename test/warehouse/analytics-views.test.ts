import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { ensureMonthPartitions } from '../../src/warehouse/month-partitions.js';
import { hoursBetween, weatherHistoryBody } from '../fixtures/payload-bodies.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let rome: number;

beforeAll(async () => {
  rome = (await wh.addLocation({ name: 'Rome', lat: 41.9028, lng: 12.4964, countryCode: 'IT' }))
    .locationId;
  const writer = new FactWriter(wh.app.db, { archiveRaw: false });
  for (const [from, to] of [
    ['2024-06-01T00:00:00Z', '2024-06-03T00:00:00Z'],
    ['2024-06-05T00:00:00Z', '2024-06-07T00:00:00Z'],
  ] as const) {
    const window = { from: new Date(from), to: new Date(to) };
    await writer.land([
      await wh.landingOf('weather', rome, window, weatherHistoryBody(hoursBetween(from, to))),
    ]);
  }
});

describe('analytics views', () => {
  it('coverage shows covered ranges, the gaps between them and the last ingested hour', async () => {
    const { rows } = await sql<{ dataset: string; covered: string; gaps: string; last: Date }>`
      select dataset, covered_ranges::text as covered, gaps::text as gaps,
        last_ingested_hour as last
      from analytics.coverage where location_id = ${rome}`.execute(wh.app.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.dataset).toBe('weather');
    expect(rows[0]!.gaps).toBe('{["2024-06-03 00:00:00+00","2024-06-05 00:00:00+00")}');
    expect(rows[0]!.last).toEqual(new Date('2024-06-06T23:00:00Z'));
  });

  it('forecast_accuracy puts each forecast hour beside what was observed for it', async () => {
    await ensureMonthPartitions(
      wh.app.db,
      ['weather_snapshot', 'pollen_snapshot'],
      new Date('2024-06-01T00:00:00Z'),
    );
    await sql`
      insert into envdata.weather_snapshot (location_id, product, fetched_at, valid_at, temperature_c)
      values (${rome}, 'forecast_72h', '2024-06-01T00:00:00Z', '2024-06-02T06:00:00Z', 9.5),
             (${rome}, 'forecast_72h', '2024-06-01T00:00:00Z', '2024-06-04T06:00:00Z', 9.5)`.execute(
      wh.app.db,
    );
    await sql`
      insert into envdata.pollen_snapshot (location_id, product, fetched_at, valid_at, pollen_type, count, risk_level)
      values (${rome}, 'forecast_48h', '2024-06-01T00:00:00Z', '2024-06-02T06:00:00Z', 'tree', 3, 'Low')`.execute(
      wh.app.db,
    );
    const { rows } = await sql<{
      dataset: string;
      lead_hours: number;
      forecast_value: number;
      observed_value: number;
    }>`
      select dataset, lead_hours::float8 as lead_hours, forecast_value, observed_value
      from analytics.forecast_accuracy
      where location_id = ${rome} and measure = 'temperature_c'`.execute(wh.app.db);
    // The 2024-06-04 forecast hour has no observation yet (a gap): only one pair.
    expect(rows).toEqual([
      {
        dataset: 'weather',
        lead_hours: 30,
        forecast_value: 9.5,
        observed_value: expect.any(Number),
      },
    ]);
    const observed = await sql<{ t: number }>`
      select temperature_c as t from analytics.weather_hourly
      where location_id = ${rome} and observed_at = '2024-06-02T06:00:00Z'`.execute(wh.app.db);
    expect(rows[0]!.observed_value).toBeCloseTo(observed.rows[0]!.t, 5);
    // No pollen observed for that hour: the pollen forecast has nothing to be compared with.
    const pollen = await sql<{ n: number }>`
      select count(*)::int as n from analytics.forecast_accuracy
      where location_id = ${rome} and dataset = 'pollen'`.execute(wh.app.db);
    expect(pollen.rows[0]!.n).toBe(0);
  });

  it('comment every column of the forecast, latest and hour-status views', async () => {
    const { rows } = await sql<{ view: string; columns: number; commented: number }>`
      select c.relname as view, count(*)::int as columns,
        count(col_description(c.oid, a.attnum))::int as commented
      from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attnum > 0
      where c.relnamespace = 'analytics'::regnamespace
        and c.relname ~ '_(forecast|latest|hour_status)$'
      group by c.relname order by c.relname`.execute(wh.app.db);
    expect(rows.map((r) => r.view)).toEqual([
      'pollen_forecast',
      'pollen_hour_status',
      'pollen_latest',
      'pollen_species_forecast',
      'weather_forecast',
      'weather_hour_status',
      'weather_latest',
    ]);
    for (const r of rows) expect(r.commented, r.view).toBe(r.columns);
  });

  it('describe every view, so dbt-sources and BI catalogs show what a row is', async () => {
    const { rows } = await sql<{ view: string; comment: string | null }>`
      select c.relname as view, obj_description(c.oid, 'pg_class') as comment
      from pg_class c
      where c.relnamespace = 'analytics'::regnamespace and c.relkind in ('v', 'm')
      order by c.relname`.execute(wh.app.db);
    expect(rows.length).toBeGreaterThanOrEqual(17);
    expect(rows.filter((r) => !r.comment?.trim()).map((r) => r.view)).toEqual([]);
  });
});
