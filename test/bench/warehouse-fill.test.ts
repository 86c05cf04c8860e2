import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Location } from '../../src/locations/location.js';
import { ensureBiRole } from '../../src/warehouse/ensure-bi-role.js';
import { refreshDailyRollups } from '../../src/warehouse/refresh-daily-rollups.js';
import {
  FORECAST_PRODUCTS,
  fillWarehouse,
  hoursIn,
  markAllDirty,
  speciesPerHour,
  type FillResult,
} from '../../bench/lib/warehouse-fill.js';
import { addWarehouseLocations } from '../../bench/lib/warehouse-locations.js';
import { exampleQueries, queryPlaces } from '../../bench/lib/warehouse-queries.js';
import { timeQuery } from '../../bench/lib/warehouse-timing.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

/** bench:warehouse's fill at a tiny scale: 2 locations × 1 year, a week of forecasts. */
const SCALE = {
  lastYear: 2025,
  weatherYears: 1,
  pollenYears: 1,
  forecastNights: 7,
  forecastProducts: FORECAST_PRODUCTS,
  facts: true,
} as const;

let locations: Location[];
let fill: FillResult;

beforeAll(async () => {
  const db = wh.app.db;
  locations = await addWarehouseLocations(db, [
    { name: 'Berlin', lat: 52.52437, lng: 13.41053, countryCode: 'DE' },
    { name: 'Sydney', lat: -33.86785, lng: 151.20732, countryCode: 'AU' },
  ]);
  fill = await fillWarehouse(db, SCALE);
  await markAllDirty(db);
  await refreshDailyRollups(db);
  await sql`analyze`.execute(db);
}, 120_000);

async function count(table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(
    `envdata.${table}`,
  )}`.execute(wh.app.db);
  return rows[0]!.n;
}

describe("bench:warehouse's fill", () => {
  it('writes as many rows as the scale implies, and reports them', async () => {
    const weatherHours = hoursIn(fill.spans.weather);
    const pollenHours = hoursIn(fill.spans.pollen);
    expect(weatherHours).toBe(8_760);
    const expected = {
      // the first location misses the 48 h weather gap
      weather_hourly: locations.length * weatherHours - hoursIn(fill.spans.weatherGap),
      pollen_hourly: locations.length * 3 * pollenHours,
      pollen_species_hourly:
        locations.reduce((n, l) => n + speciesPerHour(l.pollenRegion), 0) * pollenHours,
    };
    expect(expected.pollen_species_hourly).toBeGreaterThan(0);
    for (const [table, rows] of Object.entries(expected)) {
      expect(await count(table), table).toBe(rows);
      expect(fill.facts[table as keyof typeof expected].rows, table).toBe(rows);
    }
    expect(fill.snapshots.rows).toBe(
      (await count('weather_snapshot')) + (await count('pollen_snapshot')),
    );
    expect(fill.snapshots.rows).toBeGreaterThan(0);
  });

  it('keeps values inside the ranges the risk levels imply', async () => {
    const { rows } = await sql<{ wrong: number }>`
      select count(*)::int as wrong from envdata.pollen_hourly
      where risk_level is distinct from case
        when pollen_type = 'tree' then case when count <= 95 then 'Low' when count <= 207 then 'Moderate'
          when count <= 703 then 'High' else 'Very High' end
        when pollen_type = 'grass' then case when count <= 29 then 'Low' when count <= 60 then 'Moderate'
          when count <= 341 then 'High' else 'Very High' end
        else case when count <= 20 then 'Low' when count <= 77 then 'Moderate'
          when count <= 266 then 'High' else 'Very High' end end::envdata.risk_level`.execute(
      wh.app.db,
    );
    expect(rows[0]!.wrong).toBe(0);
    const { rows: levels } = await sql<{ levels: number }>`
      select count(distinct risk_level)::int as levels from envdata.pollen_hourly`.execute(
      wh.app.db,
    );
    expect(levels[0]!.levels).toBe(4);
  });

  it('leaves a coverage ledger that lists exactly the hours in the facts', async () => {
    const { rows } = await sql<{ wrong: number }>`
      with facts as (
        select location_id, 'weather'::envdata.dataset as dataset,
          range_agg(tstzrange(observed_at, observed_at + interval '1 hour')) as hours
        from envdata.weather_hourly group by location_id
        union all
        select location_id, 'pollen', range_agg(tstzrange(observed_at, observed_at + interval '1 hour'))
        from envdata.pollen_hourly group by location_id
      )
      select count(*)::int as wrong from envdata.coverage c
      full join facts f using (location_id, dataset)
      where c.landed is distinct from f.hours`.execute(wh.app.db);
    expect(rows[0]!.wrong).toBe(0);
    const { rows: gaps } = await sql<{ gap: string }>`
      select gap::text from analytics.coverage, unnest(gaps) as gap`.execute(wh.app.db);
    expect(gaps).toHaveLength(1);
  });

  it("has daily rollups equal to a recomputation from the hourly facts in each location's zone", async () => {
    const { rows } = await sql<{ weather: number; pollen: number; days: number }>`
      with w as (
        select h.location_id, (h.observed_at at time zone l.timezone)::date as local_date,
          count(*)::int as hours, min(h.temperature_c) as tmin, max(h.temperature_c) as tmax,
          avg(h.temperature_c) as tmean, sum(h.precip_intensity_mm_h) as precip
        from envdata.weather_hourly h join envdata.location l using (location_id)
        group by 1, 2
      ), p as (
        select h.location_id, (h.observed_at at time zone l.timezone)::date as local_date,
          h.pollen_type, count(*)::int as hours, min(h.count) as cmin, max(h.count) as cmax,
          avg(h.count) as cmean, max(h.risk_level) as risk
        from envdata.pollen_hourly h join envdata.location l using (location_id)
        group by 1, 2, 3
      )
      select
        (select count(*)::int from w full join envdata.weather_daily_rollup r using (location_id, local_date)
          where r.hours is distinct from w.hours or r.temperature_c_min is distinct from w.tmin
            or r.temperature_c_max is distinct from w.tmax
            or abs(r.temperature_c_mean - w.tmean) > 1e-3 or abs(r.precip_total_mm - w.precip) > 1e-2
            or r.location_id is null or w.location_id is null) as weather,
        (select count(*)::int from p full join envdata.pollen_daily_rollup r
            using (location_id, local_date, pollen_type)
          where r.hours is distinct from p.hours or r.count_min is distinct from p.cmin
            or r.count_max is distinct from p.cmax or abs(r.count_mean - p.cmean) > 1e-3
            or r.max_risk_level is distinct from p.risk
            or r.location_id is null or p.location_id is null) as pollen,
        (select count(*)::int from envdata.weather_daily_rollup) as days`.execute(wh.app.db);
    expect(rows[0]).toEqual({ weather: 0, pollen: 0, days: rows[0]!.days });
    // 365 local days per location, plus the partial day at either end of the UTC year
    expect(rows[0]!.days).toBeGreaterThanOrEqual(2 * 365);
  });

  it('answers every example query of docs/warehouse-queries.md as envdata_bi with rows', async () => {
    await ensureBiRole(wh.app.db);
    const queries = exampleQueries(fill.spans, queryPlaces(locations));
    expect(queries.map((q) => q.id)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      'grafana',
      'H-weather',
      'H-accuracy',
      'H-pollen',
      'F-forecast',
      'F-before',
      'F-risk',
      'H-status',
      'H-status-view',
    ]);
    for (const query of queries) {
      const timing = await timeQuery(wh.app.db, query, 1);
      expect(timing.rows, `query ${query.id}`).toBeGreaterThan(0);
      expect(timing.serverMs, `query ${query.id}`).toBeGreaterThan(0);
    }
  });
});
