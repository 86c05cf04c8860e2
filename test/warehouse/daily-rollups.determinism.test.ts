import { sql, type Kysely } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { FactWriter } from '../../src/landing/fact-writer.js';
import type { ChunkLanding } from '../../src/ledger/landing-decision.js';
import { refreshDailyRollups } from '../../src/warehouse/refresh-daily-rollups.js';
import type { Database } from '../../src/warehouse/schema.js';
import { hoursBetween, pollenHistoryBody } from '../fixtures/payload-bodies.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

// Four whole local days of January in Europe/Berlin (UTC+1, no daylight-saving change).
const START = Date.parse('2024-01-08T23:00:00Z');
const END = Date.parse('2024-01-12T23:00:00Z');
const HOUR = 3_600_000;

/**
 * Hourly weather whose daily sums depend on the order they are added in: a day's +60.1 °C and
 * -60.1 °C cancel, so whether the tiny readings in between are added to ±60.1 (and rounded
 * away) or to each other decides the last digits of the mean; and float4 sums of decimal
 * precipitation round differently at every step.
 */
function weatherAt(at: Date): Record<string, unknown> {
  const h = Math.round((at.getTime() - START) / HOUR);
  const k = h % 24;
  const temperature = k === 0 ? 60.1 : k === 12 ? -60.1 : (k + 1) * 1e-12;
  return {
    time: at.getTime() / 1000,
    temperature,
    apparentTemperature: -temperature,
    dewPoint: ((h * 37) % 23) / 10 - 1.1,
    humidity: ((h * 13) % 97) / 100 + 0.003,
    pressure: 1000 + ((h * 29) % 31) / 7,
    windSpeed: ((h * 11) % 17) / 3,
    windGust: ((h * 7) % 19) / 3,
    windBearing: (h * 45) % 360,
    cloudCover: ((h * 17) % 89) / 89,
    visibility: 10 + h / 7,
    uvIndex: (h % 9) / 10,
    ozone: 300 + h / 3,
    precipIntensity: ((h * 7) % 13) / 10 + (h % 3) / 100,
    precipProbability: ((h * 3) % 11) / 11,
    precipType: 'rain',
    summary: 'Rain',
    icon: 'rain',
  };
}

function weatherBody(hours: readonly Date[], shift = 0): string {
  const history = hours.map(weatherAt).map((r) => ({
    ...r,
    temperature: (r.temperature as number) + shift,
  }));
  return JSON.stringify({ status: 'success', data: { lat: 52.52, lng: 13.405, history } });
}

function pollenBody(hours: readonly Date[]): string {
  return pollenHistoryBody(hours, Math.round((hours[0]!.getTime() - START) / HOUR));
}

/** The body with its records in reverse order, as a service may send them. */
function reversed(body: string, dataset: 'weather' | 'pollen'): string {
  const json = JSON.parse(body) as { data: { history: unknown[] } | unknown[] };
  if (dataset === 'weather') {
    const data = json.data as { history: unknown[] };
    data.history.reverse();
  } else {
    (json.data as unknown[]).reverse();
  }
  return JSON.stringify(json);
}

interface Piece {
  readonly dataset: 'weather' | 'pollen';
  readonly from: number;
  readonly to: number;
  readonly body?: (hours: readonly Date[]) => string;
}

async function landing(locationId: number, piece: Piece): Promise<ChunkLanding> {
  const window = { from: new Date(piece.from), to: new Date(piece.to) };
  const hours = hoursBetween(window.from.toISOString(), window.to.toISOString());
  const body =
    piece.body?.(hours) ?? (piece.dataset === 'weather' ? weatherBody(hours) : pollenBody(hours));
  return wh.landingOf(piece.dataset, locationId, window, body);
}

function pieces(dataset: Piece['dataset'], hours: number): Piece[] {
  const out: Piece[] = [];
  for (let t = START; t < END; t += hours * HOUR) {
    out.push({ dataset, from: t, to: Math.min(t + hours * HOUR, END) });
  }
  return out;
}

/** A clean run: 48-hour chunks in order, one landing each. */
async function landClean(writer: FactWriter, locationId: number): Promise<void> {
  for (const piece of [...pieces('weather', 48), ...pieces('pollen', 48)]) {
    await writer.land([await landing(locationId, piece)]);
  }
}

/**
 * A resumed run: 5-hour chunks in a scrambled order, grouped into batches of three, records
 * reversed in every other payload, and one chunk first landed with other values (a correction
 * the service made later) and then landed again.
 */
async function landResumed(writer: FactWriter, locationId: number): Promise<void> {
  const all = [...pieces('weather', 5), ...pieces('pollen', 5)];
  const scrambled = all.map((_, i) => all[(i * 7) % all.length]!);
  expect(new Set(scrambled).size).toBe(all.length);
  const corrected = scrambled.find((piece) => piece.dataset === 'weather')!;
  await writer.land([
    await landing(locationId, { ...corrected, body: (hours) => weatherBody(hours, 1.5) }),
  ]);
  for (let i = 0; i < scrambled.length; i += 3) {
    const batch = scrambled.slice(i, i + 3).map((piece, j) =>
      (i + j) % 2 === 0
        ? piece
        : {
            ...piece,
            body: (hours: readonly Date[]) =>
              reversed(
                piece.dataset === 'weather' ? weatherBody(hours) : pollenBody(hours),
                piece.dataset,
              ),
          },
    );
    await writer.land(await Promise.all(batch.map((piece) => landing(locationId, piece))));
  }
}

/** Every column of a location's rollup rows as text (location_id left out), by day. */
async function rollupText(
  db: Kysely<Database>,
  table: 'weather_daily_rollup' | 'pollen_daily_rollup',
  locationId: number,
): Promise<string[]> {
  const { rows: columns } = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_schema = 'envdata' and table_name = ${table} and column_name <> 'location_id'
    order by ordinal_position`.execute(db);
  expect(columns.length).toBeGreaterThan(3);
  const list = sql.join(
    columns.map(({ column_name }) => sql`coalesce(${sql.ref(column_name)}::text, 'NULL')`),
    sql`, `,
  );
  const { rows } = await sql<{ line: string }>`
    select concat_ws(' | ', ${list}) as line
    from ${sql.table(`envdata.${table}`)} where location_id = ${locationId}
    order by 1`.execute(db);
  return rows.map((r) => r.line);
}

/** A location's hourly facts as text (location_id left out), in time order. */
async function factText(
  db: Kysely<Database>,
  table: 'weather_hourly' | 'pollen_hourly',
  locationId: number,
): Promise<string[]> {
  const { rows } = await sql<{ line: string }>`
    select (to_jsonb(f) - 'location_id' - 'answer_id')::text as line
    from ${sql.table(`envdata.${table}`)} f where location_id = ${locationId}
    order by 1`.execute(db);
  return rows.map((r) => r.line);
}

/** Marks every day of both locations dirty, as a rebuild or a late correction would. */
async function dirtyEverything(db: Kysely<Database>, locationIds: readonly number[]) {
  await sql`
    insert into envdata.rollup_dirty (location_id, dataset, from_at, to_at)
    select l, d, ${new Date(START)}::timestamptz, ${new Date(END)}::timestamptz
    from unnest(${locationIds}::int[]) l, unnest(array['weather', 'pollen']::envdata.dataset[]) d
  `.execute(db);
}

let clean: number;
let resumed: number;

beforeAll(async () => {
  // Two locations in the same time zone receive the same hourly rows, landed differently.
  clean = (
    await wh.addLocation({ name: 'Berlin Mitte', lat: 52.52, lng: 13.405, countryCode: 'DE' })
  ).locationId;
  resumed = (
    await wh.addLocation({ name: 'Berlin Pankow', lat: 52.5693, lng: 13.4016, countryCode: 'DE' })
  ).locationId;
  const writer = new FactWriter(wh.app.db, { archiveRaw: false });
  await landClean(writer, clean);
  await landResumed(writer, resumed);
  await refreshDailyRollups(wh.app.db);
});

// Before migration 0009 (unordered avg()/sum()) both rollup tests failed: precip_total_mm, a
// float4 sum of plain decimal values, differed in the 7th digit (14.039999 vs 14.04), and the
// temperature means, built to cancel, in the 5th (1.1916434e-11 vs 1.19165814e-11).

describe('daily rollups are identical whatever order the chunks landed in', () => {
  it('stores the same hourly facts for both locations (the premise)', async () => {
    for (const [table, rows] of [
      ['weather_hourly', 96],
      ['pollen_hourly', 96 * 3],
    ] as const) {
      expect(await factText(wh.app.db, table, clean)).toHaveLength(rows);
      expect(await factText(wh.app.db, table, resumed), table).toEqual(
        await factText(wh.app.db, table, clean),
      );
    }
  });

  it('writes byte-identical weather and pollen rollups with the plan the planner picks', async () => {
    for (const table of ['weather_daily_rollup', 'pollen_daily_rollup'] as const) {
      const a = await rollupText(wh.app.db, table, clean);
      expect(a).toHaveLength(table === 'weather_daily_rollup' ? 4 : 4 * 3);
      expect(await rollupText(wh.app.db, table, resumed), table).toEqual(a);
    }
  });

  it('writes byte-identical rollups when the facts are read in storage order', async () => {
    // Over long spans the planner reads the facts with sequential or bitmap scans, in the order
    // they were stored: exactly what differs between a clean and a resumed run.
    const before = await rollupText(wh.app.db, 'weather_daily_rollup', clean);
    await wh.app.db.transaction().execute(async (trx) => {
      await sql`set local enable_indexscan = off`.execute(trx);
      await sql`set local enable_indexonlyscan = off`.execute(trx);
      await dirtyEverything(trx, [clean, resumed]);
      await refreshDailyRollups(trx);
    });
    for (const table of ['weather_daily_rollup', 'pollen_daily_rollup'] as const) {
      const a = await rollupText(wh.app.db, table, clean);
      expect(await rollupText(wh.app.db, table, resumed), table).toEqual(a);
    }
    expect(await rollupText(wh.app.db, 'weather_daily_rollup', clean)).toEqual(before);
  });
});
