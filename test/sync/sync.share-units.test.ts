import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/warehouse/schema.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { syncAt } from '../harness/sync-at.js';

// Every weather answer writes humidity and precipitation probability as whole percentages
// beside cloud cover as a fraction (`unitsPerField` with `precipPercent`: a split other than the
// documented record's, so that no reader passes by knowing which field is the percentage). The
// reference is the same service writing fractions. Small syncs: two days back at most.
const SYNC_ENV = { ENVDATA_SYNC_LOOKBACK: '24h', ENVDATA_SYNC_HORIZON: '48h' };
const mixed = useBackfillFixture(
  { legacyShapes: { unitsPerField: true, precipPercent: true } },
  SYNC_ENV,
);
const reference = useBackfillFixture({}, SYNC_ENV);

/** Berlin's latest reading at 02:20 on 2024-06-11 is overcast: cloud cover 1. */
const t1 = new Date('2024-06-10T02:20:00Z');
const t2 = new Date('2024-06-11T02:20:00Z');

interface Stored {
  readonly location: string;
  readonly product: string;
  /** Which fetch of the product stored it (1 the first sync's, 2 the second's); 0 for history. */
  readonly fetch: number;
  readonly at: string;
  readonly temperature: number | null;
  readonly humidity: number | null;
  readonly cloudCover: number | null;
  readonly precipProbability: number | null;
}

/** Every weather value a sync stored: history hours, then latest readings and forecasts. */
async function storedWeather(db: Kysely<Database>): Promise<Stored[]> {
  const { rows } = await sql<Stored>`
    select l.name as location, 'history' as product, 0 as fetch,
      to_char(w.observed_at at time zone 'UTC', 'YYYY-MM-DD HH24') as at,
      w.temperature_c as temperature, w.humidity_fraction as humidity,
      w.cloud_cover_fraction as "cloudCover", w.precip_probability_fraction as "precipProbability"
    from envdata.weather_hourly w join envdata.location l using (location_id)
    union all
    select l.name, s.product::text,
      dense_rank() over (partition by s.location_id, s.product order by s.fetched_at)::int,
      to_char(s.valid_at at time zone 'UTC', 'YYYY-MM-DD HH24'), s.temperature_c,
      s.humidity_fraction, s.cloud_cover_fraction, s.precip_probability_fraction
    from envdata.weather_snapshot s join envdata.location l using (location_id)
    order by 1, 2, 3, 4`.execute(db);
  return rows;
}

describe('a sync against answers that mix units per field', () => {
  it('stores every value exactly as the service writing fractions: no share NULL, cloud cover 1 as 1', async () => {
    // The first sync teaches each source its units; the second reads Berlin's overcast latest
    // reading (humidity in percent beside cloud cover 1, as a live capture) in them.
    await syncAt(mixed, t1);
    await syncAt(reference, t1);
    mixed.simulator.setOptions({ now: t2.toISOString() });
    const berlin = mixed.locations.find((l) => l.name === 'Berlin')!;
    const sent = JSON.parse(
      (await mixed.app.serviceClient.weatherLatest({ lat: berlin.lat, lng: berlin.lng })).rawBody,
    ) as { data: Record<string, number> };
    expect(sent.data.cloudCover).toBe(1);
    expect(sent.data.humidity).toBeGreaterThan(1);
    await syncAt(mixed, t2);
    await syncAt(reference, t2);

    const stored = await storedWeather(mixed.app.db);
    expect(stored.length).toBeGreaterThan(200);
    expect(stored).toEqual(await storedWeather(reference.app.db));
    for (const field of ['humidity', 'cloudCover', 'precipProbability'] as const) {
      expect([field, stored.filter((s) => s[field] === null).length]).toEqual([field, 0]);
    }
    const latest = stored.filter((s) => s.product === 'latest' && s.location === 'Berlin');
    expect(latest.map((s) => [s.at, s.cloudCover])).toEqual([
      ['2024-06-10 02', 0.44],
      ['2024-06-11 02', 1],
    ]);
    expect(latest[1]!.humidity).toBeCloseTo(sent.data.humidity! / 100, 6);
    const { rows: quarantined } = await sql<{ n: number }>`
      select count(*)::int as n from envdata.quarantine
      where reason like 'share unit unknown:%'`.execute(mixed.app.db);
    expect(quarantined[0]!.n).toBe(0);
    const units = await mixed.app.db
      .selectFrom('share_unit')
      .select(['source', 'field', 'unit'])
      .where('dataset', '=', 'weather')
      .where('field', '=', 'cloudCover')
      .orderBy('source')
      .execute();
    expect(units.map((u) => `${u.source} ${u.unit}`)).toEqual(
      expect.arrayContaining(['history fraction', 'latest fraction']),
    );
  });
});
