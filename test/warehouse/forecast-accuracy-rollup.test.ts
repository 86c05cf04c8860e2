import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { WEATHER_SNAPSHOT } from '../../src/datasets/weather/weather-tables.js';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { refreshDailyRollups } from '../../src/warehouse/refresh-daily-rollups.js';
import { SpeciesIds } from '../../src/warehouse/species-ids.js';
import { tableRows } from '../../src/warehouse/fact-table.js';
import { writeSnapshot } from '../../src/warehouse/write-snapshot.js';
import { hoursBetween, weatherHistoryBody } from '../fixtures/payload-bodies.js';
import { storeWeatherForecast, temperatureRow } from '../fixtures/weather-forecast.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
const H = 3_600_000;
let tokyo: number;

/** Lands weather for [from, to) through the writer, as a chunk's landing does. */
async function landWeather(from: string, to: string, offset = 0): Promise<void> {
  const writer = new FactWriter(wh.app.db, { archiveRaw: false });
  const window = { from: new Date(from), to: new Date(to) };
  const body = JSON.parse(weatherHistoryBody(hoursBetween(from, to))) as {
    data: { history: { temperature: number }[] };
  };
  for (const record of body.data.history) record.temperature += offset;
  await writer.land([await wh.landingOf('weather', tokyo, window, JSON.stringify(body))]);
}

async function observedTemperatures(from: Date, hours: number): Promise<Map<number, number>> {
  const { rows } = await sql<{ at: Date; t: number }>`
    select observed_at as at, temperature_c as t from envdata.weather_hourly
    where location_id = ${tokyo} and observed_at >= ${from}
      and observed_at < ${new Date(from.getTime() + hours * H)}`.execute(wh.app.db);
  return new Map(rows.map((r) => [r.at.getTime(), r.t]));
}

/** A 72-hour forecast fetched at `fetchedAt`, each hour `error` °C off what is observed now. */
async function storeForecast(fetchedAt: Date, error: number): Promise<void> {
  const observed = await observedTemperatures(fetchedAt, 72);
  await storeWeatherForecast(wh.app.db, tokyo, fetchedAt, (hour) => {
    const t = observed.get(hour.getTime());
    return t === undefined ? 20 : t + error;
  });
}

interface Day {
  local_date: string;
  lead_day: number;
  pairs: number;
  mae: number;
}

async function temperatureDays(): Promise<Day[]> {
  const { rows } = await sql<Day>`
    select local_date::text, lead_day, pairs, mae from analytics.forecast_accuracy_daily
    where location_id = ${tokyo} and measure = 'temperature_c'
    order by local_date, lead_day`.execute(wh.app.db);
  return rows;
}

beforeAll(async () => {
  tokyo = (await wh.addLocation({ name: 'Tokyo', lat: 35.6762, lng: 139.6503, countryCode: 'JP' }))
    .locationId;
  await landWeather('2024-03-01T00:00:00Z', '2024-03-03T00:00:00Z');
  await refreshDailyRollups(wh.app.db);
});

describe('analytics.forecast_accuracy_daily', () => {
  it('counts a forecast stored after its hours were observed, per local day and lead day', async () => {
    // Fetched at 12:00 UTC, 21:00 in Tokyo: the 36 observed hours it covers span three local days.
    await storeForecast(new Date('2024-03-01T12:00:00Z'), 1.5);
    expect(await temperatureDays()).toEqual([]);
    await refreshDailyRollups(wh.app.db);
    const days = await temperatureDays();
    // 36 observed hours, 12:00 UTC on 03-01 to 00:00 UTC on 03-03; Tokyo's midnight is 15:00 UTC.
    // Lead day is ⌈lead hours / 24⌉: the hour fetched is lead day 0.
    expect(days.map((d) => [d.local_date, d.lead_day, d.pairs])).toEqual([
      ['2024-03-01', 0, 1], // 21:00 JST
      ['2024-03-01', 1, 2], // 22:00–23:00 JST
      ['2024-03-02', 1, 22], // lead 3–24 h
      ['2024-03-02', 2, 2], // lead 25–26 h
      ['2024-03-03', 2, 9], // lead 27–35 h, 00:00–08:00 JST
    ]);
    for (const d of days) expect(d.mae).toBeCloseTo(1.5, 4);
  });

  it('counts the hours of a forecast observed later, and follows an observation that changes', async () => {
    // The forecast's hours past 03-03 00:00 UTC are not observed yet: they land now.
    await landWeather('2024-03-03T00:00:00Z', '2024-03-05T00:00:00Z');
    await refreshDailyRollups(wh.app.db);
    let days = await temperatureDays();
    expect(days.reduce((n, d) => n + d.pairs, 0)).toBe(72);
    // Those hours were forecast as 20 °C; the rest 1.5 °C off.
    const expected = await sql<{ mae: number }>`
      select avg(abs(forecast_value - observed_value)) as mae from analytics.forecast_accuracy
      where location_id = ${tokyo} and measure = 'temperature_c'`.execute(wh.app.db);
    const weighted = days.reduce((s, d) => s + d.mae * d.pairs, 0) / 72;
    expect(weighted).toBeCloseTo(expected.rows[0]!.mae, 4);

    // The service sends other values for an hour already landed: the accuracy follows them.
    await landWeather('2024-03-01T00:00:00Z', '2024-03-03T00:00:00Z', 3);
    await refreshDailyRollups(wh.app.db);
    days = await temperatureDays();
    const first = days.find((d) => d.local_date === '2024-03-01')!;
    expect(first.mae).toBeCloseTo(1.5, 4);
    // Every hour of 03-01 was 1.5 °C too warm; the observation grew by 3 °C: now 1.5 °C too cold.
    const { rows } = await sql<{ bias: number }>`
      select bias from analytics.forecast_accuracy_daily
      where location_id = ${tokyo} and measure = 'temperature_c' and local_date = '2024-03-01'`.execute(
      wh.app.db,
    );
    expect(rows[0]!.bias).toBeCloseTo(-1.5, 4);
  });

  it('stores nothing for a latest reading, and marks no hours for it', async () => {
    const before = await sql<{ n: number }>`
      select count(*)::int as n from envdata.rollup_dirty`.execute(wh.app.db);
    await writeSnapshot(
      wh.app.db,
      new SpeciesIds(),
      {
        locationId: tokyo,
        dataset: 'weather',
        product: 'latest',
        fetchedAt: new Date('2024-03-02T00:00:00Z'),
      },
      [tableRows(WEATHER_SNAPSHOT, [temperatureRow(new Date('2024-03-02T00:00:00Z'), 1)])],
    );
    const after = await sql<{ n: number }>`
      select count(*)::int as n from envdata.rollup_dirty`.execute(wh.app.db);
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from analytics.forecast_accuracy_daily where product = 'latest'`.execute(
      wh.app.db,
    );
    expect(rows[0]!.n).toBe(0);
  });
});
