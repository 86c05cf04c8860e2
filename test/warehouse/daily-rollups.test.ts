import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { refreshDailyRollups } from '../../src/warehouse/refresh-daily-rollups.js';
import { hoursBetween, pollenHistoryBody, weatherHistoryBody } from '../fixtures/payload-bodies.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let berlin: number;

beforeAll(async () => {
  berlin = (await wh.addLocation({ name: 'Berlin', lat: 52.52, lng: 13.405, countryCode: 'DE' }))
    .locationId;
  // Europe/Berlin springs forward on 2024-03-31 (23-hour day) and falls back on 2024-10-27 (25 hours).
  const writer = new FactWriter(wh.app.db, { archiveRaw: false });
  for (const [from, to] of [
    ['2024-03-29T00:00:00Z', '2024-04-02T00:00:00Z'],
    ['2024-10-25T00:00:00Z', '2024-10-29T00:00:00Z'],
  ] as const) {
    const window = { from: new Date(from), to: new Date(to) };
    const hours = hoursBetween(from, to);
    await writer.land([
      await wh.landingOf('weather', berlin, window, weatherHistoryBody(hours)),
      await wh.landingOf('pollen', berlin, window, pollenHistoryBody(hours)),
    ]);
  }
  await refreshDailyRollups(wh.app.db);
});

describe('daily rollups by local day', () => {
  it('counts 23 hours on the spring-forward day and 25 on the fall-back day', async () => {
    const { rows } = await sql<{ local_date: string; hours: number }>`
      select to_char(local_date, 'YYYY-MM-DD') as local_date, hours from analytics.weather_daily
      where location_id = ${berlin} and local_date in ('2024-03-30', '2024-03-31', '2024-04-01', '2024-10-27')
      order by local_date`.execute(wh.app.db);
    expect(rows).toEqual([
      { local_date: '2024-03-30', hours: 24 },
      { local_date: '2024-03-31', hours: 23 },
      { local_date: '2024-04-01', hours: 24 },
      { local_date: '2024-10-27', hours: 25 },
    ]);
  });

  it('computes min, max and mean over the local day, matching the hourly facts', async () => {
    const { rows } = await sql<{
      expected_min: number;
      expected_max: number;
      expected_mean: number;
      temperature_c_min: number;
      temperature_c_max: number;
      temperature_c_mean: number;
    }>`
      select d.temperature_c_min, d.temperature_c_max, d.temperature_c_mean,
        h.expected_min, h.expected_max, h.expected_mean
      from analytics.weather_daily d,
      lateral (select min(temperature_c) as expected_min, max(temperature_c) as expected_max,
          avg(temperature_c) as expected_mean
        from analytics.weather_hourly w
        where w.location_id = d.location_id
          and (w.observed_at at time zone 'Europe/Berlin')::date = d.local_date) h
      where d.location_id = ${berlin} and d.local_date = '2024-03-31'`.execute(wh.app.db);
    const row = rows[0]!;
    expect(row.temperature_c_min).toBe(row.expected_min);
    expect(row.temperature_c_max).toBe(row.expected_max);
    expect(row.temperature_c_mean).toBeCloseTo(row.expected_mean, 4);
  });

  it("keeps each pollen type's highest risk level of the local day", async () => {
    const { rows } = await sql<{ pollen_type: string; max_risk_level: string; count_max: number }>`
      select pollen_type, max_risk_level, count_max from analytics.pollen_daily
      where location_id = ${berlin} and local_date = '2024-03-30' order by pollen_type`.execute(
      wh.app.db,
    );
    // Hours 23..46 of the fixture fall on local 2024-03-30: tree is Moderate up to hour 30,
    // Very High after; its count peaks at 2 × 46.
    expect(rows.map((r) => [r.pollen_type, r.max_risk_level, r.count_max])).toEqual([
      ['grass', 'Low', 46],
      ['tree', 'Very High', 92],
      ['weed', 'Low', 1],
    ]);
  });

  it('refreshes only dirty days and consumes them', async () => {
    expect(await refreshDailyRollups(wh.app.db)).toBe(0);
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from envdata.rollup_dirty`.execute(wh.app.db);
    expect(rows[0]!.n).toBe(0);
  });
});
