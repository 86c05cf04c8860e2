import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { PollenTypeRow } from '../../src/datasets/pollen/pollen-rows.js';
import type { WeatherRow } from '../../src/datasets/weather/weather-rows.js';
import type { Location } from '../../src/locations/location.js';
import { INSTANT_KEYS } from '../../src/service/parse-record-instant.js';
import type { Dataset } from '../../src/types.js';
import type { FactRow } from '../../src/warehouse/fact-rows.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { servedSnapshot } from '../harness/served-snapshot.js';
import { syncAt } from '../harness/sync-at.js';

// A short lookback and horizon: the history a sync reads is beside the point here.
const fx = useBackfillFixture({}, { ENVDATA_SYNC_LOOKBACK: '2h', ENVDATA_SYNC_HORIZON: '4h' });
const H = 3_600_000;
/** The service's clock runs 90 minutes ahead: its stamps fall in the hour after the fetch's. */
const AHEAD = 90 * 60_000;
const t1 = new Date('2024-06-10T02:20:00Z');
const t2 = new Date(t1.getTime() + 24 * H);
const later = (at: Date) => new Date(at.getTime() + AHEAD);

/** The latest rows of `table` the simulator serves now, read as a sync at `fetchedAt` does. */
function served<Row extends FactRow>(
  dataset: Dataset,
  location: Location,
  table: string,
  fetchedAt: Date,
): Promise<Row[]> {
  return servedSnapshot<Row>(fx.app, { dataset, product: 'latest', location, table, fetchedAt });
}

/** The stamp keys of the latest records the simulator sends now at `location`. */
async function sentStampKeys(location: Location): Promise<string[]> {
  const at = { lat: location.lat, lng: location.lng };
  const bodies = [
    (await fx.app.serviceClient.pollenLatestByLatLng(at)).rawBody,
    (await fx.app.serviceClient.weatherLatest(at)).rawBody,
  ];
  return bodies.flatMap((body) => {
    const { data } = JSON.parse(body) as { data: object | object[] };
    return (Array.isArray(data) ? data : [data]).flatMap((record) =>
      INSTANT_KEYS.filter((key) => key in record),
    );
  });
}

interface PollenLatest {
  fetched_at: Date;
  observed_at: Date;
  pollen_type: string;
  count: number | null;
  risk_level: string | null;
  stamped_at_fetch: boolean;
}

async function pollenLatest(location: Location): Promise<PollenLatest[]> {
  const { rows } = await sql<PollenLatest>`
    select fetched_at, observed_at, pollen_type, count, risk_level, stamped_at_fetch
    from analytics.pollen_latest where location_id = ${location.locationId}
    order by pollen_type`.execute(fx.app.db);
  return rows;
}

interface WeatherLatest {
  fetched_at: Date;
  observed_at: Date;
  temperature_c: number | null;
  pressure_hpa: number | null;
  icon: string | null;
  stamped_at_fetch: boolean;
}

async function weatherLatest(location: Location): Promise<WeatherLatest[]> {
  const { rows } = await sql<WeatherLatest>`
    select fetched_at, observed_at, temperature_c, pressure_hpa, icon, stamped_at_fetch
    from analytics.weather_latest where location_id = ${location.locationId}`.execute(fx.app.db);
  return rows;
}

/** What `analytics.pollen_latest` should show of `sent`, read at `observedAt`. */
function expectedPollen(
  sent: readonly PollenTypeRow[],
  fetchedAt: Date,
  observedAt: Date,
  stamped: boolean,
) {
  return [...sent]
    .sort((a, b) => a.pollenType.localeCompare(b.pollenType))
    .map((r) => ({
      fetched_at: fetchedAt,
      observed_at: observedAt,
      pollen_type: r.pollenType,
      count: r.count,
      risk_level: r.riskLevel,
      stamped_at_fetch: stamped,
    }));
}

function expectedWeather(
  sent: readonly WeatherRow[],
  fetchedAt: Date,
  observedAt: Date,
  stamped: boolean,
) {
  expect(sent).toHaveLength(1);
  const [r] = sent;
  return [
    {
      fetched_at: fetchedAt,
      observed_at: observedAt,
      temperature_c: r!.temperatureC,
      pressure_hpa: r!.pressureHpa,
      icon: r!.icon,
      stamped_at_fetch: stamped,
    },
  ];
}

describe('a latest reading', () => {
  it("sent with a stamp is stored at the service's hour, not stamped at fetch", async () => {
    await syncAt(fx, t1, later(t1));
    // The service's hour: 03:50 read as 03:00; the fetch's would be 02:00.
    const serviceHour = new Date('2024-06-10T03:00:00Z');
    for (const location of fx.locations) {
      expect(await sentStampKeys(location), location.name).not.toEqual([]);
      const pollen = await served<PollenTypeRow>('pollen', location, 'pollen_snapshot', t1);
      expect(pollen.length, location.name).toBeGreaterThan(0);
      expect(pollen.every((r) => +r.observedAt === +serviceHour && !r.stampedAtFetch)).toBe(true);
      expect(await pollenLatest(location)).toEqual(expectedPollen(pollen, t1, serviceHour, false));
      const weather = await served<WeatherRow>('weather', location, 'weather_snapshot', t1);
      expect(await weatherLatest(location)).toEqual(
        expectedWeather(weather, t1, serviceHour, false),
      );
    }
  });

  it('sent without a stamp is stored at the hour of the fetch, stamped_at_fetch', async () => {
    fx.simulator.setOptions({ legacyShapes: { noLatestStamp: true } });
    try {
      await syncAt(fx, t2, later(t2));
      const fetchHour = new Date('2024-06-11T02:00:00Z');
      for (const location of fx.locations) {
        expect(await sentStampKeys(location), location.name).toEqual([]);
        const pollen = await served<PollenTypeRow>('pollen', location, 'pollen_snapshot', t2);
        expect(pollen.length, location.name).toBeGreaterThan(0);
        expect(await pollenLatest(location)).toEqual(expectedPollen(pollen, t2, fetchHour, true));
        const weather = await served<WeatherRow>('weather', location, 'weather_snapshot', t2);
        expect(await weatherLatest(location)).toEqual(
          expectedWeather(weather, t2, fetchHour, true),
        );
      }

      // Every row of the stampless readings says so, species included; nothing else does.
      const { rows } = await sql<{ table: string; product: string; rows: number; hours: Date[] }>`
        select 'pollen_snapshot' as table, product::text, count(*)::int as rows,
          array_agg(distinct valid_at) as hours
        from envdata.pollen_snapshot where stamped_at_fetch group by product
        union all
        select 'pollen_species_snapshot', product::text, count(*)::int, array_agg(distinct valid_at)
        from envdata.pollen_species_snapshot where stamped_at_fetch group by product
        union all
        select 'weather_snapshot', product::text, count(*)::int, array_agg(distinct valid_at)
        from envdata.weather_snapshot where stamped_at_fetch group by product
        order by 1`.execute(fx.app.db);
      expect(rows.map((r) => [r.table, r.product, r.hours])).toEqual([
        ['pollen_snapshot', 'latest', [fetchHour]],
        ['pollen_species_snapshot', 'latest', [fetchHour]],
        ['weather_snapshot', 'latest', [fetchHour]],
      ]);
      const { rows: latest } = await sql<{ table: string; rows: number }>`
        select 'pollen_snapshot' as table, count(*)::int as rows from envdata.pollen_snapshot
        where product = 'latest' and fetched_at = ${t2}
        union all
        select 'pollen_species_snapshot', count(*)::int from envdata.pollen_species_snapshot
        where product = 'latest' and fetched_at = ${t2}
        union all
        select 'weather_snapshot', count(*)::int from envdata.weather_snapshot
        where product = 'latest' and fetched_at = ${t2}
        order by 1`.execute(fx.app.db);
      expect(rows.map((r) => r.rows)).toEqual(latest.map((r) => r.rows));
      expect(latest.every((r) => r.rows > 0)).toBe(true);
    } finally {
      fx.simulator.setOptions({ legacyShapes: false });
    }
  });
});
