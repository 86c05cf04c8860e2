import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createHousekeeping } from '../../src/housekeeping/create-housekeeping.js';
import { refreshDailyRollups } from '../../src/warehouse/refresh-daily-rollups.js';
import type { Database } from '../../src/warehouse/schema.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { snapshotPartitions } from '../harness/snapshot-partitions.js';
import { syncAt } from '../harness/sync-at.js';

// A lookback past a day: each sync lands the hours the previous day's forecasts were about.
const fx = useBackfillFixture({}, { ENVDATA_SYNC_LOOKBACK: '30h', ENVDATA_SYNC_HORIZON: '30h' });

/** Two syncs in January, one on the first of February and of March (fetch months, UTC). */
const SYNCS = [
  '2025-01-30T02:20:00Z',
  '2025-01-31T02:20:00Z',
  '2025-02-01T02:20:00Z',
  '2025-03-01T02:20:00Z',
].map((at) => new Date(at));
const TABLES = ['pollen_snapshot', 'pollen_species_snapshot', 'weather_snapshot'] as const;

/** Each snapshot table's fetches: instant → rows. */
async function fetches(db: Kysely<Database>): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const table of TABLES) {
    const { rows } = await sql<{ at: Date; n: number }>`
      select fetched_at as at, count(*)::int as n from ${sql.table(`envdata.${table}`)}
      group by 1 order by 1`.execute(db);
    out[table] = Object.fromEntries(rows.map((r) => [r.at.toISOString(), r.n]));
  }
  return out;
}

/** Every row of the forecast-accuracy rollup, as text in one order. */
async function accuracyRollup(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ row: string }>`
    select format('%s', r) as row from envdata.forecast_accuracy_rollup r order by 1`.execute(db);
  return rows.map((r) => r.row);
}

/** The rollup as a refresh of every dirty day would leave it now, without keeping that refresh. */
async function accuracyAfterRefresh(db: Kysely<Database>): Promise<string[]> {
  let rows: string[] = [];
  await db
    .transaction()
    .execute(async (trx) => {
      await refreshDailyRollups(trx);
      rows = await accuracyRollup(trx);
      throw new Error('rolled back');
    })
    .catch((error: unknown) => {
      if (!(error instanceof Error && error.message === 'rolled back')) throw error;
    });
  return rows;
}

describe('snapshot retention (ENVDATA_SNAPSHOT_RETENTION)', () => {
  it('unset, keeps every month of snapshots stored by the syncs', async () => {
    for (const at of SYNCS) await syncAt(fx, at);
    expect(fx.app.config.sync.snapshotRetentionMs).toBeUndefined();
    await createHousekeeping(fx.app).pass();
    expect(await snapshotPartitions(fx.app.db)).toEqual(
      TABLES.flatMap((t) => ['2025_01', '2025_02', '2025_03'].map((m) => `${t}_m${m}`)),
    );
    for (const table of TABLES) {
      expect(Object.keys((await fetches(fx.app.db))[table]!), table).toEqual(
        SYNCS.map((at) => at.toISOString()),
      );
    }
  });

  it('drops the whole months fetched before it, keeps a month only part of which is that old, and leaves the accuracy rollup as it was', async () => {
    const db = fx.app.db;
    const before = await fetches(db);
    const summed = await accuracyRollup(db);
    // January's forecasts as stored but not summed yet (their days dirty, no rollup rows): the
    // drop must sum them before they go.
    await sql`delete from envdata.forecast_accuracy_rollup where local_date < '2025-02-01'`.execute(
      db,
    );
    await sql`
      insert into envdata.rollup_dirty (location_id, dataset, from_at, to_at)
      select location_id, d.dataset, '2025-01-29T00:00:00Z', '2025-02-01T00:00:00Z'
      from envdata.location cross join unnest(enum_range(null::envdata.dataset)) d(dataset)`.execute(
      db,
    );
    const expected = await accuracyAfterRefresh(db);
    expect(expected).toEqual(summed);
    const januaryDays = expected.filter((r) => r.includes(',2025-01-3'));
    expect(januaryDays.length, 'rollup rows of January days').toBeGreaterThan(0);

    // Retention up to 2025-03-15: January and February are past it, March only in part.
    const retentionMs = Date.now() - Date.parse('2025-03-15T00:00:00Z');
    const { config, db: appDb, logger, outages } = fx.app;
    const housekeeping = createHousekeeping({
      db: appDb,
      logger,
      outages,
      config: { ...config, sync: { ...config.sync, snapshotRetentionMs: retentionMs } },
    });
    await housekeeping.pass();

    expect(await snapshotPartitions(db)).toEqual(TABLES.map((t) => `${t}_m2025_03`));
    const march = SYNCS[3]!.toISOString();
    expect(await fetches(db)).toEqual(
      Object.fromEntries(TABLES.map((t) => [t, { [march]: before[t]![march] }])),
    );
    expect(await accuracyRollup(db)).toEqual(expected);

    // A backfill landing those hours again marks their days dirty: the days whose forecasts are
    // gone keep their figures, the others are summed again to the same.
    await sql`
      insert into envdata.rollup_dirty (location_id, dataset, from_at, to_at)
      select location_id, d.dataset, '2025-01-01T00:00:00Z', '2025-04-01T00:00:00Z'
      from envdata.location cross join unnest(enum_range(null::envdata.dataset)) d(dataset)`.execute(
      db,
    );
    await refreshDailyRollups(db);
    expect(await accuracyRollup(db)).toEqual(expected);
  });

  it('leaves the forecast and latest views on the newest fetch, readable by envdata_bi', async () => {
    const newest = SYNCS[3]!;
    const read = await fx.app.db.transaction().execute(async (trx) => {
      await sql`set local role envdata_bi`.execute(trx);
      const { rows } = await sql<{ view: string; fetched_at: Date; n: number }>`
        select 'pollen_forecast' as view, fetched_at, count(*)::int as n
        from analytics.pollen_forecast group by 2
        union all select 'pollen_species_forecast', fetched_at, count(*)::int
        from analytics.pollen_species_forecast group by 2
        union all select 'weather_forecast', fetched_at, count(*)::int
        from analytics.weather_forecast group by 2
        union all select 'pollen_latest', fetched_at, count(*)::int
        from analytics.pollen_latest group by 2
        union all select 'weather_latest', fetched_at, count(*)::int
        from analytics.weather_latest group by 2
        order by 1`.execute(trx);
      const accuracy = await sql<{ n: number }>`
        select count(*)::int as n from analytics.forecast_accuracy_daily`.execute(trx);
      return { rows, accuracy: accuracy.rows[0]!.n };
    });
    expect(read.rows.map((r) => [r.view, r.fetched_at])).toEqual(
      [
        'pollen_forecast',
        'pollen_latest',
        'pollen_species_forecast',
        'weather_forecast',
        'weather_latest',
      ].map((view) => [view, newest]),
    );
    expect(read.rows.every((r) => r.n > 0)).toBe(true);
    expect(read.accuracy).toBeGreaterThan(0);
  });
});
