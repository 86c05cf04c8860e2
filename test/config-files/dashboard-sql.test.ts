import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { ensureBiRole } from '../../src/warehouse/ensure-bi-role.js';
import { refreshDailyRollups } from '../../src/warehouse/refresh-daily-rollups.js';
import { hoursBetween, pollenHistoryBody, weatherHistoryBody } from '../fixtures/payload-bodies.js';
import { storeWeatherForecast } from '../fixtures/weather-forecast.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';
import { dashboards, targetsOf } from './config-files.js';
import { expandMacros, interpolateVariables, type TimeRange } from './grafana-sql.js';

const wh = useTestWarehouse();
const warehouse = dashboards().find((d) => d.dashboard.uid === 'envdata-warehouse')!.dashboard;
const sqlTargets = targetsOf(warehouse).filter(({ target }) => target.rawSql !== undefined);
const locationVariable = warehouse.templating.list.find((v) => v.name === 'location')!;

/** The landed hours: four UTC days of weather and pollen for Vienna, none for Lyon (and a weather forecast for Vienna). */
const DATA: TimeRange = {
  from: new Date('2024-04-01T00:00:00Z'),
  to: new Date('2024-04-05T00:00:00Z'),
};
/** The dashboard's range in the tests: the data, with a day either side. */
const AROUND: TimeRange = {
  from: new Date('2024-03-31T00:00:00Z'),
  to: new Date('2024-04-06T00:00:00Z'),
};
const BEFORE: TimeRange = {
  from: new Date('2023-01-01T00:00:00Z'),
  to: new Date('2023-02-01T00:00:00Z'),
};

/** Type ids of the columns Grafana reads as numbers. */
const NUMERIC = new Set([
  pg.types.builtins.INT2,
  pg.types.builtins.INT4,
  pg.types.builtins.INT8,
  pg.types.builtins.FLOAT4,
  pg.types.builtins.FLOAT8,
  pg.types.builtins.NUMERIC,
]);
const TIME = new Set([pg.types.builtins.TIMESTAMPTZ, pg.types.builtins.TIMESTAMP, ...NUMERIC]);

let vienna: number;
let lyon: number;
let bi: pg.Client;

beforeAll(async () => {
  vienna = (await wh.addLocation({ name: 'Vienna', lat: 48.2082, lng: 16.3738, countryCode: 'AT' }))
    .locationId;
  lyon = (await wh.addLocation({ name: 'Lyon', lat: 45.764, lng: 4.8357, countryCode: 'FR' }))
    .locationId;
  const hours = hoursBetween(DATA.from.toISOString(), DATA.to.toISOString());
  await new FactWriter(wh.app.db, { archiveRaw: false }).land([
    await wh.landingOf('weather', vienna, DATA, weatherHistoryBody(hours)),
    await wh.landingOf('pollen', vienna, DATA, pollenHistoryBody(hours)),
  ]);
  // A forecast fetched on the second day (25 °C throughout), for the accuracy panel.
  await storeWeatherForecast(wh.app.db, vienna, new Date('2024-04-02T00:00:00Z'), () => 25);
  await refreshDailyRollups(wh.app.db);
  // As `envdata bi-role` does (without a login: the session below switches to the role).
  await ensureBiRole(wh.app.db);
  bi = new pg.Client({ connectionString: wh.env.databaseUrl });
  await bi.connect();
  await bi.query('set role envdata_bi');
});

afterAll(async () => {
  await bi?.end();
});

/** A panel's SQL as Grafana sends it for `location`, `range` and `interval`, run as envdata_bi. */
async function runPanelSql(rawSql: string, location: number, range: TimeRange, interval: string) {
  const text = expandMacros(
    interpolateVariables(rawSql, { location: String(location), __interval: interval }),
    range,
  );
  const { rows: who } = await bi.query<{ role: string }>('select current_user as role');
  expect(who[0]?.role).toBe('envdata_bi');
  return bi.query<Record<string, unknown>>(text);
}

describe('the warehouse dashboard against a real warehouse, as envdata_bi', () => {
  it('has SQL panels to run', () => {
    expect(sqlTargets.length).toBeGreaterThanOrEqual(8);
  });

  it('offers each location in $location, named, valued by location_id', async () => {
    const { rows } = await bi.query<{ __text: string; __value: number }>(locationVariable.query!);
    expect(rows).toEqual([
      { __text: 'Lyon', __value: lyon },
      { __text: 'Vienna', __value: vienna },
    ]);
  });

  describe.each(sqlTargets.map(({ panel, target }) => [panel.title, target] as const))(
    '%s',
    (_title, target) => {
      const timeSeries = target.format !== 'table';

      it.each(['1h', '1d'])(
        `returns the location's data with ${timeSeries ? 'a time column and numeric values' : 'its rows'} ($__interval %s)`,
        async (interval) => {
          const result = await runPanelSql(target.rawSql!, vienna, AROUND, interval);
          expect(result.rows.length).toBeGreaterThan(0);
          const names = result.fields.map((f) => f.name);
          expect(new Set(names).size).toBe(names.length);
          if (!timeSeries) return;
          const [time, ...values] = result.fields;
          expect(time?.name).toBe('time');
          expect(TIME.has(time!.dataTypeID), `time column type ${time?.dataTypeID}`).toBe(true);
          expect(values.length).toBeGreaterThan(0);
          for (const field of values) {
            expect(NUMERIC.has(field.dataTypeID), `${field.name}: type ${field.dataTypeID}`).toBe(
              true,
            );
          }
          // Grafana wants time series ordered by time, and some values in them.
          const instants = result.rows.map((row) =>
            Number(row.time instanceof Date ? +row.time : row.time),
          );
          expect(instants).toEqual([...instants].sort((a, b) => a - b));
          const filled = result.rows.filter((row) => values.some((f) => row[f.name] !== null));
          expect(filled.length).toBeGreaterThan(0);
        },
      );

      it('keeps to the chosen location, and to the time range', async () => {
        expect((await runPanelSql(target.rawSql!, lyon, AROUND, '1h')).rows).toEqual([]);
        if (timeSeries) {
          expect((await runPanelSql(target.rawSql!, vienna, BEFORE, '1h')).rows).toEqual([]);
        }
      });
    },
  );
});
