import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { PollenSpeciesRow, PollenTypeRow } from '../../src/datasets/pollen/pollen-rows.js';
import type { WeatherRow } from '../../src/datasets/weather/weather-rows.js';
import type { Location } from '../../src/locations/location.js';
import type { Dataset, SnapshotProduct } from '../../src/types.js';
import type { FactRow } from '../../src/warehouse/fact-rows.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { servedSnapshot } from '../harness/served-snapshot.js';
import { syncAt } from '../harness/sync-at.js';

// A short lookback and horizon: the history a sync reads is beside the point here.
const fx = useBackfillFixture({}, { ENVDATA_SYNC_LOOKBACK: '2h', ENVDATA_SYNC_HORIZON: '4h' });
const H = 3_600_000;
const t1 = new Date('2024-06-10T02:20:00Z');
const t2 = new Date(t1.getTime() + 24 * H);

/** The rows of one table of `product` as the simulator serves it now, asked again by the test. */
function served<Row extends FactRow>(
  dataset: Dataset,
  product: SnapshotProduct,
  location: Location,
  table: string,
): Promise<Row[]> {
  // The simulator stamps every reading here: the instant a stampless one would get is unread.
  return servedSnapshot<Row>(fx.app, { dataset, product, location, table, fetchedAt: t1 });
}

/** The wall-clock time of `at` in `timeZone`, as Postgres prints a `timestamp`. */
function localTime(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('sv-SE', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).format(at);
}

const iso = (d: Date) => d.toISOString();
const byKey =
  <T>(key: (row: T) => string) =>
  (a: T, b: T) =>
    key(a).localeCompare(key(b));

interface PollenViewRow {
  location_id: number;
  product: string;
  fetched_at: Date;
  valid_at: Date;
  valid_at_local: string;
  lead_hours: number;
  pollen_type: string;
  count: number | null;
  risk_level: string | null;
}

async function pollenForecast(location: Location, product: string): Promise<PollenViewRow[]> {
  const { rows } = await sql<PollenViewRow>`
    select location_id, product, fetched_at, valid_at, valid_at_local::text as valid_at_local,
      lead_hours, pollen_type, count, risk_level
    from analytics.pollen_forecast where location_id = ${location.locationId} and product = ${product}
    order by valid_at, pollen_type`.execute(fx.app.db);
  return rows;
}

/** What the view should say of a pollen forecast served at `fetchedAt`. */
function expectedPollen(
  location: Location,
  product: string,
  fetchedAt: Date,
  rows: readonly PollenTypeRow[],
) {
  return [...rows].sort(byKey((r) => `${iso(r.observedAt)} ${r.pollenType}`)).map((r) => ({
    location_id: location.locationId,
    product,
    fetched_at: fetchedAt,
    valid_at: r.observedAt,
    valid_at_local: localTime(r.observedAt, location.timezone),
    lead_hours: Math.floor((r.observedAt.getTime() - fetchedAt.getTime()) / H),
    pollen_type: r.pollenType,
    count: r.count,
    risk_level: r.riskLevel,
  }));
}

describe('the forecast and latest views after a sync', () => {
  it("show each location's forecasts exactly as the simulator served them", async () => {
    await syncAt(fx, t1);
    for (const location of fx.locations) {
      for (const product of ['forecast_48h', 'forecast_120h'] as const) {
        const rows = await served<PollenTypeRow>('pollen', product, location, 'pollen_snapshot');
        expect(rows.length, `${location.name} ${product}`).toBeGreaterThan(0);
        expect(await pollenForecast(location, product)).toEqual(
          expectedPollen(location, product, t1, rows),
        );
      }
    }

    const berlin = fx.locations.find((l) => l.name === 'Berlin')!;
    const species = await served<PollenSpeciesRow>(
      'pollen',
      'forecast_48h',
      berlin,
      'pollen_species_snapshot',
    );
    const { rows: speciesRows } = await sql<{
      valid_at: Date;
      category: string;
      species: string;
      count: number;
    }>`
      select valid_at, category, species, count from analytics.pollen_species_forecast
      where location_id = ${berlin.locationId} and product = 'forecast_48h'`.execute(fx.app.db);
    const speciesKey = (r: { valid_at: Date; category: string; species: string }) =>
      `${iso(r.valid_at)} ${r.category} ${r.species}`;
    expect(species.length).toBeGreaterThan(0);
    expect(speciesRows.sort(byKey(speciesKey))).toEqual(
      species
        .map((r) => ({
          valid_at: r.observedAt,
          category: r.category,
          species: r.species,
          count: r.count,
        }))
        .sort(byKey(speciesKey)),
    );

    const weather = await served<WeatherRow>('weather', 'forecast_72h', berlin, 'weather_snapshot');
    const { rows: weatherRows } = await sql<{
      valid_at: Date;
      lead_hours: number;
      temperature_c: number | null;
      humidity_pct: number | null;
      precip_probability_pct: number | null;
      icon: string | null;
    }>`
      select valid_at, lead_hours, temperature_c, humidity_pct, precip_probability_pct, icon
      from analytics.weather_forecast
      where location_id = ${berlin.locationId} and product = 'forecast_72h'
      order by valid_at`.execute(fx.app.db);
    expect(weather.length).toBeGreaterThan(0);
    expect(weatherRows.map((r) => [r.valid_at, r.lead_hours, r.temperature_c, r.icon])).toEqual(
      [...weather]
        .sort(byKey((r) => iso(r.observedAt)))
        .map((r) => [
          r.observedAt,
          Math.floor((r.observedAt.getTime() - t1.getTime()) / H),
          r.temperatureC,
          r.icon,
        ]),
    );
    weatherRows.forEach((r, i) => {
      const sent = weather.find((w) => +w.observedAt === +r.valid_at)!;
      expect(r.humidity_pct, `humidity at ${iso(r.valid_at)} (${i})`).toBeCloseTo(
        sent.humidityFraction! * 100,
        4,
      );
      expect(r.precip_probability_pct).toBeCloseTo(sent.precipProbabilityFraction! * 100, 4);
    });
  });

  it("show each location's latest reading as served, stamped by the service", async () => {
    for (const location of fx.locations) {
      const sent = await served<PollenTypeRow>('pollen', 'latest', location, 'pollen_snapshot');
      expect(sent.length, location.name).toBeGreaterThan(0);
      const newest = Math.max(...sent.map((r) => r.observedAt.getTime()));
      const { rows } = await sql<{
        fetched_at: Date;
        observed_at: Date;
        observed_at_local: string;
        pollen_type: string;
        count: number | null;
        risk_level: string | null;
      }>`
        select fetched_at, observed_at, observed_at_local::text as observed_at_local,
          pollen_type, count, risk_level
        from analytics.pollen_latest where location_id = ${location.locationId}
        order by pollen_type`.execute(fx.app.db);
      expect(rows).toEqual(
        sent
          .filter((r) => r.observedAt.getTime() === newest)
          .sort(byKey((r) => r.pollenType))
          .map((r) => ({
            fetched_at: t1,
            observed_at: r.observedAt,
            observed_at_local: localTime(r.observedAt, location.timezone),
            pollen_type: r.pollenType,
            count: r.count,
            risk_level: r.riskLevel,
          })),
      );
    }
    const berlin = fx.locations.find((l) => l.name === 'Berlin')!;
    const [reading, ...more] = await served<WeatherRow>(
      'weather',
      'latest',
      berlin,
      'weather_snapshot',
    );
    expect(more).toEqual([]);
    const { rows } = await sql<{ fetched_at: Date; observed_at: Date; temperature_c: number }>`
      select fetched_at, observed_at, temperature_c from analytics.weather_latest
      where location_id = ${berlin.locationId}`.execute(fx.app.db);
    expect(rows).toEqual([
      { fetched_at: t1, observed_at: reading!.observedAt, temperature_c: reading!.temperatureC },
    ]);
  });

  it('move to the next sync’s forecasts and readings, while the older ones stay stored', async () => {
    await syncAt(fx, t2);
    const berlin = fx.locations.find((l) => l.name === 'Berlin')!;
    const rows = await served<PollenTypeRow>('pollen', 'forecast_120h', berlin, 'pollen_snapshot');
    expect(await pollenForecast(berlin, 'forecast_120h')).toEqual(
      expectedPollen(berlin, 'forecast_120h', t2, rows),
    );
    const { rows: newest } = await sql<{ view: string; fetched_at: Date }>`
      select 'pollen_forecast' as view, fetched_at from analytics.pollen_forecast
      union select 'pollen_species_forecast', fetched_at from analytics.pollen_species_forecast
      union select 'weather_forecast', fetched_at from analytics.weather_forecast
      union select 'pollen_latest', fetched_at from analytics.pollen_latest
      union select 'weather_latest', fetched_at from analytics.weather_latest
      order by 1`.execute(fx.app.db);
    expect(newest).toEqual(
      [
        'pollen_forecast',
        'pollen_latest',
        'pollen_species_forecast',
        'weather_forecast',
        'weather_latest',
      ].map((view) => ({ view, fetched_at: t2 })),
    );
    const { rows: stored } = await sql<{ fetches: number }>`
      select count(distinct fetched_at)::int as fetches from envdata.pollen_snapshot
      where location_id = ${berlin.locationId} and product = 'forecast_120h'`.execute(fx.app.db);
    expect(stored[0]!.fetches).toBe(2);
  });
});
