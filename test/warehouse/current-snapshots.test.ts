import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  POLLEN_SNAPSHOT,
  POLLEN_SPECIES_SNAPSHOT,
} from '../../src/datasets/pollen/pollen-tables.js';
import type { PollenSpeciesRow, PollenTypeRow } from '../../src/datasets/pollen/pollen-rows.js';
import { dropExpiredSnapshots } from '../../src/warehouse/drop-expired-snapshots.js';
import type { Database } from '../../src/warehouse/schema.js';
import { SpeciesIds } from '../../src/warehouse/species-ids.js';
import { tableRows } from '../../src/warehouse/fact-table.js';
import { writeSnapshot } from '../../src/warehouse/write-snapshot.js';
import { storeWeatherForecast } from '../fixtures/weather-forecast.js';
import { pollUntil } from '../harness/poll-until.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
const H = 3_600_000;
const DAY = 24 * H;

/** A pollen 120 h forecast fetched at `fetchedAt`: 40 3-hourly hours of every type, `count` each. */
function pollenForecast(fetchedAt: Date, count: number, species = true) {
  const hours = Array.from({ length: 40 }, (_, i) => new Date(fetchedAt.getTime() + i * 3 * H));
  const types: PollenTypeRow[] = hours.flatMap((observedAt) =>
    (['tree', 'grass', 'weed'] as const).map((pollenType) => ({
      observedAt,
      pollenType,
      count,
      riskLevel: 'Low' as const,
    })),
  );
  const perSpecies: PollenSpeciesRow[] = species
    ? hours.map((observedAt) => ({
        observedAt,
        category: 'tree',
        species: 'Birch',
        count,
        riskLevel: null,
      }))
    : [];
  return [tableRows(POLLEN_SNAPSHOT, types), tableRows(POLLEN_SPECIES_SNAPSHOT, perSpecies)];
}

async function storePollen(
  db: Kysely<Database>,
  locationId: number,
  fetchedAt: Date,
  count: number,
  species = true,
): Promise<number> {
  return writeSnapshot(
    db,
    new SpeciesIds(),
    { locationId, dataset: 'pollen', product: 'forecast_120h', fetchedAt },
    pollenForecast(fetchedAt, count, species),
  );
}

/** What `analytics.pollen_forecast` and its species view show of one location's 120 h forecast. */
async function shown(db: Kysely<Database>, locationId: number) {
  const { rows: types } = await sql<{ fetched_at: Date; count: number; rows: number }>`
    select fetched_at, min(count) as count, count(*)::int as rows from analytics.pollen_forecast
    where location_id = ${locationId} and product = 'forecast_120h'
    group by fetched_at`.execute(db);
  const { rows: species } = await sql<{ fetched_at: Date; rows: number }>`
    select fetched_at, count(*)::int as rows from analytics.pollen_species_forecast
    where location_id = ${locationId} and product = 'forecast_120h'
    group by fetched_at`.execute(db);
  return { types, species };
}

/** Every row of the copies, in one order. */
async function copies(db: Kysely<Database>) {
  const { rows } = await sql<{ row: string }>`
    select format('%s', p) as row from envdata.pollen_snapshot_current p
    union all select format('%s', s) from envdata.pollen_species_snapshot_current s
    union all select format('%s', w) from envdata.weather_snapshot_current w
    union all select format('%s', f) from envdata.current_fetch f
    order by 1`.execute(db);
  return rows.map((r) => r.row);
}

describe('each location’s current snapshots (migration 0040)', () => {
  it('copy their snapshot table’s columns in order, enums as text, then the local hour and lead', async () => {
    const { rows } = await sql<{ table: string; columns: string[] }>`
      select c.relname as table,
        array_agg(format('%s %s %s', a.attname,
          case when t.typtype = 'e' then 'text' else format_type(a.atttypid, a.atttypmod) end,
          a.attnotnull) order by a.attnum) as columns
      from pg_class c
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      join pg_type t on t.oid = a.atttypid
      where c.relnamespace = 'envdata'::regnamespace
        and c.relname in ('pollen_snapshot', 'pollen_species_snapshot', 'weather_snapshot',
          'pollen_snapshot_current', 'pollen_species_snapshot_current', 'weather_snapshot_current')
      group by c.relname`.execute(wh.app.db);
    const columns = new Map(rows.map((r) => [r.table, r.columns]));
    expect(columns.size).toBe(6);
    for (const table of ['pollen_snapshot', 'pollen_species_snapshot', 'weather_snapshot']) {
      expect(columns.get(`${table}_current`), table).toEqual([
        ...columns.get(table)!,
        'valid_at_local timestamp without time zone t',
        'lead_hours integer t',
      ]);
    }
  });

  it('follow a location’s time zone when it changes', async () => {
    const db = wh.app.db;
    const { locationId } = await wh.addLocation({ name: 'Bergen', lat: 60.39, lng: 5.32 });
    const fetched = new Date('2025-07-01T02:00:00Z');
    await storePollen(db, locationId, fetched, 1);
    const local = async () => {
      const { rows } = await sql<{ local: string }>`
        select valid_at_local::text as local from analytics.pollen_forecast
        where location_id = ${locationId} order by valid_at limit 1`.execute(db);
      return rows[0]?.local;
    };
    expect(await local()).toBe('2025-07-01 04:00:00'); // Europe/Oslo, summer: UTC+2
    await db
      .updateTable('location')
      .set({ timezone: 'America/New_York' })
      .where('location_id', '=', locationId)
      .execute();
    expect(await local()).toBe('2025-06-30 22:00:00');
  });

  it('move forward with each newer store, never back, and the views show the newest', async () => {
    const db = wh.app.db;
    const { locationId } = await wh.addLocation({ name: 'Vienna', lat: 48.21, lng: 16.37 });
    const t1 = new Date('2025-03-01T02:00:00Z');
    const t2 = new Date(t1.getTime() + DAY);
    const t0 = new Date(t1.getTime() - DAY);

    await storePollen(db, locationId, t1, 1);
    expect(await shown(db, locationId)).toEqual({
      types: [{ fetched_at: t1, count: 1, rows: 120 }],
      species: [{ fetched_at: t1, rows: 40 }],
    });
    await storePollen(db, locationId, t2, 2);
    const newest = {
      types: [{ fetched_at: t2, count: 2, rows: 120 }],
      species: [{ fetched_at: t2, rows: 40 }],
    };
    expect(await shown(db, locationId)).toEqual(newest);

    // A late retry of an older sync's store lands in the history, and t2 stays current.
    expect(await storePollen(db, locationId, t0, 9)).toBeGreaterThan(0);
    expect(await shown(db, locationId)).toEqual(newest);
    // The same fetch stored again writes nothing and changes nothing.
    expect(await storePollen(db, locationId, t2, 7)).toBe(0);
    expect(await shown(db, locationId)).toEqual(newest);
    const { rows: history } = await sql<{ fetches: number }>`
      select count(distinct fetched_at)::int as fetches from envdata.pollen_snapshot
      where location_id = ${locationId}`.execute(db);
    expect(history[0]?.fetches).toBe(3);

    // A newer forecast without species: both views show that fetch, the species view nothing.
    const t3 = new Date(t2.getTime() + DAY);
    await storePollen(db, locationId, t3, 3, false);
    expect(await shown(db, locationId)).toEqual({
      types: [{ fetched_at: t3, count: 3, rows: 120 }],
      species: [],
    });
  });

  it('are rebuilt from the snapshot tables exactly as the stores kept them', async () => {
    const db = wh.app.db;
    const a = await wh.addLocation({ name: 'Lyon', lat: 45.76, lng: 4.84 });
    const b = await wh.addLocation({ name: 'Porto', lat: 41.15, lng: -8.61 });
    const t1 = new Date('2025-04-01T02:00:00Z');
    await storePollen(db, a.locationId, t1, 1);
    await storePollen(db, a.locationId, new Date(t1.getTime() + DAY), 2);
    await storePollen(db, b.locationId, new Date(t1.getTime() + 2 * DAY), 5);
    await storeWeatherForecast(db, b.locationId, t1, () => 11);
    await storeWeatherForecast(db, b.locationId, new Date(t1.getTime() + DAY), () => 12);
    const kept = await copies(db);
    expect(kept.length).toBeGreaterThan(0);

    await sql`truncate envdata.pollen_snapshot_current, envdata.weather_snapshot_current`.execute(
      db,
    );
    await sql`select envdata.rebuild_current_snapshots()`.execute(db);
    expect(await copies(db)).toEqual(kept);
  });

  it.each([
    ['the newer', 'Graz', 47.07],
    ['the older', 'Linz', 48.31],
  ])(
    'keep the newest when two stores of one product race, %s first',
    async (firstOne, name, lat) => {
      const db = wh.app.db;
      const { locationId } = await wh.addLocation({ name, lat, lng: 15.44 });
      const older = new Date('2025-05-01T02:00:00Z');
      const newer = new Date(older.getTime() + DAY);
      // Both fetches stored, neither current yet: the race is over which one advances.
      await storePollen(db, locationId, new Date(older.getTime() - DAY), 0);
      await storePollen(db, locationId, older, 1);
      await storePollen(db, locationId, newer, 2);
      await sql`
      update envdata.current_fetch set fetched_at = ${new Date(older.getTime() - DAY)}
      where location_id = ${locationId}`.execute(db);

      const first = new pg.Client({ connectionString: wh.env.databaseUrl });
      const second = new pg.Client({ connectionString: wh.env.databaseUrl });
      await Promise.all([first.connect(), second.connect()]);
      try {
        const advance = (client: pg.Client, at: Date) =>
          client.query<{ advanced: boolean }>(
            `select envdata.advance_current_snapshot($1, 'pollen', 'forecast_120h', $2) as advanced`,
            [locationId, at],
          );
        await first.query('begin');
        await second.query('begin');
        const [one, other] = firstOne === 'the newer' ? [newer, older] : [older, newer];
        expect((await advance(first, one)).rows[0]?.advanced).toBe(true);
        // The other store waits on the first's row lock, then compares with what it committed.
        const pid = (await second.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!
          .pid;
        const waiting = advance(second, other);
        await pollUntil(
          async () => {
            const { rows } = await sql<{ n: number }>`
            select count(*)::int as n from pg_locks where pid = ${pid} and not granted`.execute(db);
            return rows[0]!.n > 0 ? { done: true } : { last: rows[0]!.n };
          },
          { timeoutMs: 10_000, describe: () => 'the second store never waited for the first' },
        );
        await first.query('commit');
        expect((await waiting).rows[0]?.advanced).toBe(other === newer);
        await second.query('commit');
      } finally {
        await Promise.all([first.end(), second.end()]);
      }
      expect((await shown(db, locationId)).types).toEqual([
        { fetched_at: newer, count: 2, rows: 120 },
      ]);
    },
  );

  it('outlive the history that retention drops', async () => {
    const db = wh.app.db;
    const { locationId } = await wh.addLocation({ name: 'Turin', lat: 45.07, lng: 7.69 });
    const fetched = new Date('2025-01-10T02:00:00Z');
    await storePollen(db, locationId, fetched, 4);
    const dropped = await dropExpiredSnapshots(db, 31 * DAY, new Date('2025-06-01T00:00:00Z'));
    expect(dropped).toContain('pollen_snapshot_m2025_01');
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from envdata.pollen_snapshot where location_id = ${locationId}`.execute(
      db,
    );
    expect(rows[0]?.n).toBe(0);
    expect((await shown(db, locationId)).types).toEqual([
      { fetched_at: fetched, count: 4, rows: 120 },
    ]);
  });
});
