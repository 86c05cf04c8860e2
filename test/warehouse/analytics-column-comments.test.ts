import { ensureMonthPartitions } from '../../src/warehouse/month-partitions.js';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { ANALYTICS_COLUMNS } from '../../tools/warehouse-doc/analytics-columns.js';
import { refreshDailyRollups } from '../../src/warehouse/refresh-daily-rollups.js';
import { hoursBetween } from '../fixtures/payload-bodies.js';
import { RECORDED_WEATHER_HOUR } from '../fixtures/weather-record.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;

/** docs/warehouse.md's short names of the types Postgres spells out. */
const DOC_TYPE: Readonly<Record<string, string>> = {
  'timestamp with time zone': 'timestamptz',
  'timestamp without time zone': 'timestamp',
};

/** Values whose `real` holds them only approximately: 0.73 is stored as 0.7300000190734863. */
const SENT = {
  ...RECORDED_WEATHER_HOUR,
  temperature: 21.3,
  humidity: 0.73,
  cloudCover: 0.07,
  precipProbability: 0.29,
  pressure: 1013.25,
  windSpeed: 3.45,
  precipIntensity: 0.1,
};
const HOURS = hoursBetween('2024-06-01T00:00:00Z', '2024-06-03T00:00:00Z');

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
  const body = JSON.stringify({
    status: 'success',
    data: {
      lat: 59.9139,
      lng: 10.7522,
      history: HOURS.map((at) => ({ time: at.getTime() / 1000, ...SENT })),
    },
  });
  const window = { from: HOURS[0]!, to: new Date(HOURS.at(-1)!.getTime() + 3_600_000) };
  await new FactWriter(wh.app.db, { archiveRaw: false }).land([
    await wh.landingOf('weather', oslo, window, body),
  ]);
  await ensureMonthPartitions(wh.app.db, ['weather_snapshot'], new Date('2024-06-01T00:00:00Z'));
  await sql`
    insert into envdata.weather_snapshot (location_id, product, fetched_at, valid_at,
      temperature_c, humidity_fraction)
    values (${oslo}, 'forecast_72h', '2024-06-01T00:00:00Z', '2024-06-01T06:00:00Z', 21.3, 0.75),
      (${oslo}, 'latest', '2024-06-01T00:00:00Z', '2024-05-31T23:00:00Z', 21.3, 0.73)`.execute(
    wh.app.db,
  );
  // Stored by hand, not by a sync: made current as a sync's stores would.
  await sql`select envdata.rebuild_current_snapshots()`.execute(wh.app.db);
  await refreshDailyRollups(wh.app.db);
});

describe('the columns of the analytics views', () => {
  it('each carry the comment, type and order tools/warehouse-doc/analytics-columns.ts gives them', async () => {
    const { rows } = await sql<{
      view: string;
      name: string;
      type: string;
      comment: string | null;
    }>`
      select 'analytics.' || c.relname as view, a.attname as name,
        format_type(a.atttypid, a.atttypmod) as type, d.description as comment
      from pg_class c
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      left join pg_description d
        on d.classoid = 'pg_class'::regclass and d.objoid = c.oid and d.objsubid = a.attnum
      where c.relnamespace = 'analytics'::regnamespace and c.relkind = 'v'
      order by c.relname, a.attnum`.execute(wh.app.db);
    expect(rows.filter((r) => r.comment === null).map((r) => `${r.view}.${r.name}`)).toEqual([]);
    const views = [...new Set(rows.map((r) => r.view))];
    expect(views).toEqual(ANALYTICS_COLUMNS.map((v) => v.view).sort());
    for (const { view, columns } of ANALYTICS_COLUMNS) {
      const inDatabase = rows
        .filter((r) => r.view === view)
        .map((r) => ({ name: r.name, type: DOC_TYPE[r.type] ?? r.type, meaning: r.comment }));
      expect(inDatabase, view).toEqual(
        columns.map((c) => ({ name: c.name, type: c.type, meaning: c.meaning })),
      );
    }
  });

  it('show no real: a value is a double precision, or no number', async () => {
    const { rows } = await sql<{ column: string }>`
      select c.relname || '.' || a.attname as column
      from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attnum > 0
      where c.relnamespace = 'analytics'::regnamespace and a.atttypid = 'real'::regtype`.execute(
      wh.app.db,
    );
    expect(rows).toEqual([]);
  });
});

describe('values stored as real', () => {
  // As text: what psql and every BI tool print, float noise included.
  it('read back in the hourly view exactly as the service sent them', async () => {
    const { rows } = await sql<Record<string, string>>`
      select humidity_pct::text as humidity, cloud_cover_pct::text as cloud,
        precip_probability_pct::text as precip_probability, temperature_c::text as temperature,
        pressure_hpa::text as pressure, wind_speed_ms::text as wind, ozone_du::text as ozone,
        (avg(humidity_pct) over ())::text as mean_humidity
      from analytics.weather_hourly where location_id = ${oslo} limit 1`.execute(wh.app.db);
    expect(rows[0]).toEqual({
      humidity: '73',
      cloud: '7',
      precip_probability: '29',
      temperature: '21.3',
      pressure: '1013.25',
      wind: '3.45',
      ozone: '316.52',
      mean_humidity: '73',
    });
  });

  it('read back in the forecast, latest and accuracy views as sent', async () => {
    const forecast = await sql<{ t: string; h: string }>`
      select temperature_c::text as t, humidity_pct::text as h from analytics.weather_forecast
      where location_id = ${oslo}`.execute(wh.app.db);
    expect(forecast.rows).toEqual([{ t: '21.3', h: '75' }]);
    const latest = await sql<{ t: string; h: string }>`
      select temperature_c::text as t, humidity_pct::text as h from analytics.weather_latest
      where location_id = ${oslo}`.execute(wh.app.db);
    expect(latest.rows).toEqual([{ t: '21.3', h: '73' }]);
    const pairs = await sql<{ measure: string; forecast: string; observed: string }>`
      select measure, forecast_value::text as forecast, observed_value::text as observed
      from analytics.forecast_accuracy
      where location_id = ${oslo} and measure in ('temperature_c', 'humidity_pct')
      order by measure`.execute(wh.app.db);
    expect(pairs.rows).toEqual([
      { measure: 'humidity_pct', forecast: '75', observed: '73' },
      { measure: 'temperature_c', forecast: '21.3', observed: '21.3' },
    ]);
    // The daily accuracy sums the same values: 75 − 73, not 1.9999980926513672.
    const daily = await sql<{ error_sum: string }>`
      select error_sum::text from analytics.forecast_accuracy_daily
      where location_id = ${oslo} and measure = 'humidity_pct'`.execute(wh.app.db);
    expect(daily.rows).toEqual([{ error_sum: '2' }]);
  });

  it('read back in the daily view at the precision of its statistics', async () => {
    // As a double, as BI tools widen every number: a real 21.3 shows 21.299999237060547.
    const { rows } = await sql<Record<string, string>>`
      select humidity_pct_min::float8::text as humidity_min,
        humidity_pct_mean::float8::text as humidity_mean,
        temperature_c_max::float8::text as temperature_max,
        temperature_c_mean::float8::text as temperature_mean,
        precip_total_mm::float8::text as precip_total
      from analytics.weather_daily
      where location_id = ${oslo} and local_date = '2024-06-01'`.execute(wh.app.db);
    // Oslo is UTC+2 in June: its 2024-06-01 has 22 of the landed hours, each 0.1 mm.
    expect(rows[0]).toEqual({
      humidity_min: '73',
      humidity_mean: '73',
      temperature_max: '21.3',
      temperature_mean: '21.3',
      precip_total: '2.2',
    });
  });
});
