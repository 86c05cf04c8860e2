import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Location } from '../../src/locations/location.js';
import { ensureBiRole } from '../../src/warehouse/ensure-bi-role.js';
import { fillWarehouse, type FillResult } from '../../bench/lib/warehouse-fill.js';
import { addWarehouseLocations } from '../../bench/lib/warehouse-locations.js';
import { exampleQueries, queryPlaces } from '../../bench/lib/warehouse-queries.js';
import { timeQuery } from '../../bench/lib/warehouse-timing.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

/**
 * bench:warehouse's `--skip-facts --forecast-products forecast_120h`: the nightly 120 h pollen
 * forecasts alone, over 40 nights that span two fetch months (2025-11-22 → 2025-12-31).
 */
const SCALE = {
  lastYear: 2025,
  weatherYears: 1,
  pollenYears: 1,
  forecastNights: 40,
  forecastProducts: ['forecast_120h'],
  facts: false,
} as const;

let locations: Location[];
let fill: FillResult;

beforeAll(async () => {
  const db = wh.app.db;
  locations = await addWarehouseLocations(db, [
    { name: 'Berlin', lat: 52.52437, lng: 13.41053, countryCode: 'DE' },
    { name: 'Sydney', lat: -33.86785, lng: 151.20732, countryCode: 'AU' },
    // South America: no pollen data, so no pollen forecasts either
    { name: 'Lima', lat: -12.04318, lng: -77.02824, countryCode: 'PE' },
  ]);
  fill = await fillWarehouse(db, SCALE);
  await sql`analyze`.execute(db);
}, 120_000);

describe("bench:warehouse's forecast fill without the facts", () => {
  it('writes 120 rows per night and location with pollen data, in a partition per fetch month', async () => {
    const { rows } = await sql<{ part: string; rows: number; nights: number; locations: number }>`
      select c.relname as part, count(*)::int as rows,
        count(distinct fetched_at)::int as nights, count(distinct location_id)::int as locations
      from envdata.pollen_snapshot s join pg_class c on c.oid = s.tableoid
      where product = 'forecast_120h'
      group by 1 order by 1`.execute(wh.app.db);
    expect(rows).toEqual([
      { part: 'pollen_snapshot_m2025_11', rows: 2 * 9 * 120, nights: 9, locations: 2 },
      { part: 'pollen_snapshot_m2025_12', rows: 2 * 31 * 120, nights: 31, locations: 2 },
    ]);
    const { rows: others } = await sql<{ n: number }>`
      select (select count(*) from envdata.pollen_snapshot where product <> 'forecast_120h')
        + (select count(*) from envdata.weather_snapshot)
        + (select count(*) from envdata.pollen_hourly)
        + (select count(*) from envdata.weather_hourly) as n`.execute(wh.app.db);
    expect(Number(others[0]!.n)).toBe(0);
    expect(fill.snapshots.rows).toBe(2 * 40 * 120);
  });

  it('keeps each forecast 3-hourly over 120 h from the sync, with risk levels of its counts', async () => {
    const { rows } = await sql<{ hours: number; first: number; last: number; wrong: number }>`
      select count(distinct valid_at)::int as hours,
        min(extract(epoch from valid_at - fetched_at) / 3600)::int as first,
        max(extract(epoch from valid_at - fetched_at) / 3600)::int as last,
        count(*) filter (where extract(epoch from valid_at - fetched_at)::int % 10800 <> 0
          or risk_level is null or count < 0)::int as wrong
      from envdata.pollen_snapshot
      where fetched_at = timestamptz '2025-12-31 02:00+00'`.execute(wh.app.db);
    expect(rows[0]).toEqual({ hours: 40, first: 0, last: 117, wrong: 0 });
  });

  it("answers the current 120 h forecast with the newest night's rows, and the hour status, as envdata_bi", async () => {
    await ensureBiRole(wh.app.db);
    const queries = exampleQueries(fill.spans, queryPlaces(locations)).filter(
      (q) => q.reads !== 'facts',
    );
    expect(queries.map((q) => q.id)).toEqual([
      '5',
      'F-forecast',
      'F-before',
      'F-risk',
      'H-status',
      'H-status-view',
    ]);
    const timings = new Map<string, Awaited<ReturnType<typeof timeQuery>>>();
    for (const query of queries) {
      const timing = await timeQuery(wh.app.db, query, 1);
      expect(timing.rows, `query ${query.id}`).toBeGreaterThan(0);
      expect(timing.serverMs, `query ${query.id}`).toBeGreaterThan(0);
      timings.set(query.id, timing);
    }
    // The baseline reads the history as the view did: the same rows.
    expect(timings.get('F-before')?.rows).toBe(timings.get('F-forecast')?.rows);
    const { rows } = await sql<{ rows: number; fetched: Date[] }>`
      select count(*)::int as rows, array_agg(distinct fetched_at) as fetched
      from analytics.pollen_forecast where product = 'forecast_120h'`.execute(wh.app.db);
    expect(rows[0]).toEqual({ rows: 2 * 120, fetched: [new Date('2025-12-31T02:00:00Z')] });
    const { rows: status } = await sql<{ status: string; hours: number }>`
      select status, count(*)::int as hours
      from analytics.hour_status('weather', ${locations[0]!.locationId},
        timestamptz '2025-01-01 00:00+00', timestamptz '2026-01-01 00:00+00')
      group by status order by status`.execute(wh.app.db);
    // the ledger alone: every hour landed but the bench's 48 h gap in the first location
    expect(status).toEqual([
      { status: 'landed', hours: 8_760 - 48 },
      { status: 'not_fetched', hours: 48 },
    ]);
  });
});
