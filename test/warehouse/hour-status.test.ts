import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
const H = 3_600_000;
const START = new Date('2024-06-01T00:00:00Z');
const at = (hours: number) => new Date(START.getTime() + hours * H);

describe('analytics.hour_status', () => {
  it('says "not_covered" for hours the service answered 404 for, and "landed" beside them', async () => {
    // A 404 is recorded as a "not covered" hole by a running run (record-landings); the hole is
    // what the view reads, so it is written here as the ledger writes it.
    const { locationId } = await wh.addLocation({
      name: 'Reykjavik',
      lat: 64.1466,
      lng: -21.9426,
      countryCode: 'IS',
    });
    await wh.landWeather(locationId, { from: at(0), to: at(24) });
    await sql`
      insert into envdata.coverage_hole (location_id, dataset, hours, cause)
      values (${locationId}, 'weather', tstzrange(${at(24)}, ${at(36)}), 'not_covered')`.execute(
      wh.app.db,
    );

    const { rows } = await sql<{ status: string; hours: number; first: Date }>`
      select status, count(*)::int as hours, min(observed_at) as first
      from analytics.hour_status('weather', ${locationId}, ${at(0)}, ${at(48)})
      group by status order by first`.execute(wh.app.db);

    expect(rows).toEqual([
      { status: 'landed', hours: 24, first: at(0) },
      { status: 'not_covered', hours: 12, first: at(24) },
      { status: 'not_fetched', hours: 12, first: at(36) },
    ]);
  });
});
