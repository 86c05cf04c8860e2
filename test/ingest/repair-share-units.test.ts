import { sql, type Kysely } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { FactWriter } from '../../src/landing/fact-writer.js';
import {
  FolderMigrationProvider,
  migrateToLatest,
  pendingMigrations,
} from '../../src/warehouse/migrate-to-latest.js';
import type { Database } from '../../src/warehouse/schema.js';
import { hoursBetween } from '../fixtures/payload-bodies.js';
import { captureLogger } from '../harness/capture-logger.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
const SHARE_UNIT_MIGRATION = '2026_11_28_0041_share_unit_per_field';

/**
 * A weather history answer over `[from, to)` whose every hour sends these three shares, as the
 * service does (units per field: humidity in percent beside cloud cover as a fraction).
 */
function answer(from: string, to: string, humidity: number, cloudCover: number, precip: number) {
  return JSON.stringify({
    status: 'success',
    data: {
      lat: 52.52,
      lng: 13.405,
      history: hoursBetween(from, to).map((at) => ({
        time: at.getTime() / 1000,
        temperature: 12.5,
        humidity,
        cloudCover,
        precipProbability: precip,
        pressure: 1012,
        summary: 'Overcast',
        icon: 'cloudy',
      })),
    },
  });
}

interface Shares {
  readonly day: string;
  readonly humidity: number | null;
  readonly cloudCover: number | null;
  readonly precip: number | null;
  readonly hours: number;
}

/** The distinct shares stored per day (each test answer sends the same shares every hour). */
async function sharesByDay(db: Kysely<Database>): Promise<Shares[]> {
  const { rows } = await sql<Shares>`
    select to_char(observed_at at time zone 'UTC', 'YYYY-MM-DD') as day,
      humidity_fraction as humidity, cloud_cover_fraction as "cloudCover",
      precip_probability_fraction as precip, count(*)::int as hours
    from envdata.weather_hourly
    group by 1, 2, 3, 4 order by 1`.execute(db);
  return rows;
}

const DAYS = {
  // Overcast all day: cloud cover only 1s, which no unit reads by itself; humidity 85 %.
  overcast: ['2024-05-01T00:00:00Z', '2024-05-02T00:00:00Z'],
  // The documented record's units: humidity 81 (%), cloud cover 0.83, precipitation 0.02.
  mixed: ['2024-05-02T00:00:00Z', '2024-05-03T00:00:00Z'],
  // The live capture's: humidity 92 (%), cloud cover 1 (overcast: a fraction of 1.0), dry.
  captured: ['2024-05-03T00:00:00Z', '2024-05-04T00:00:00Z'],
} as const;

beforeAll(async () => {
  const db = wh.app.db;
  const berlin = await wh.addLocation({ name: 'Berlin', lat: 52.52, lng: 13.405 });
  const writer = new FactWriter(db, { archiveRaw: true });
  // Archived in this order (chunk ids ascending), as three backfill chunks would be.
  for (const [[from, to], [humidity, cloudCover, precip]] of [
    [DAYS.overcast, [85, 1, 0]],
    [DAYS.mixed, [81, 0.83, 0.02]],
    [DAYS.captured, [92, 1, 0]],
  ] as const) {
    const window = { from: new Date(from), to: new Date(to) };
    const landing = await wh.landingOf(
      'weather',
      berlin.locationId,
      window,
      answer(from, to, humidity, cloudCover, precip),
    );
    await writer.land([landing]);
  }
  // What the release before 0041 stored for these answers, deciding one unit from all shares
  // of an answer together: the overcast and captured days read as percent (humidity above 1),
  // so cloud cover 1 became 1 %; the mixed day contradicted itself (81 beside 0.83), so every
  // share of it was set aside with its record quarantined; and it remembered `percent`.
  await sql`update envdata.weather_hourly set cloud_cover_fraction = 0.01
    where observed_at < '2024-05-02' or observed_at >= '2024-05-03'`.execute(db);
  await sql`update envdata.weather_hourly set humidity_fraction = null,
    cloud_cover_fraction = null, precip_probability_fraction = null
    where observed_at >= '2024-05-02' and observed_at < '2024-05-03'`.execute(db);
  await sql`delete from envdata.quarantine`.execute(db);
  await sql`
    insert into envdata.quarantine (chunk_id, run_id, location_id, source, record_index, raw, reason, observed_at)
    select p.chunk_id, p.run_id, p.location_id, 'weather', (extract(hour from h.at))::int, '{}'::jsonb,
      'share unit unknown: humidity 81, cloudCover 0.83, precipProbability 0.02 not landed (the answer has shares above 1 (percentages) and strictly between 0 and 1 (fractions), so no one unit reads it); the record''s other values landed',
      h.at
    from envdata.raw_payload p,
      generate_series(p.window_from, p.window_to - interval '1 hour', interval '1 hour') as h(at)
    where p.window_from = '2024-05-02'`.execute(db);
  // Back to the release before 0041: every later migration undone, newest first.
  const migrations = await new FolderMigrationProvider().getMigrations();
  const later = Object.keys(migrations)
    .filter((name) => name >= SHARE_UNIT_MIGRATION)
    .sort()
    .reverse();
  for (const name of later) {
    await db.transaction().execute((trx) => migrations[name]!.down!(trx));
    await sql`delete from public.envdata_migration where name = ${name}`.execute(db);
  }
  await sql`insert into envdata.share_unit (dataset, source, unit)
    values ('weather', 'history', 'percent')`.execute(db);
});

describe('upgrading a warehouse filled under the rule of one unit per answer (migration 0041)', () => {
  it('envdata migrate repairs the shares from the archive with zero calls, says how many, and leaves an undecidable one set aside, visibly', async () => {
    const db = wh.app.db;
    const callsBefore = await db.selectFrom('chunk').select(['chunk_id', 'calls']).execute();
    const env = wh.env.cliEnv({ LOG_LEVEL: 'warn' });

    // Migrated without the repair (an upgrade interrupted after the migrations): the warehouse
    // is still behind, and every command but `migrate` says so.
    await migrateToLatest(db, captureLogger().logger);
    expect(await pendingMigrations(db)).toEqual(['repair share-units-per-field']);
    const refused = await runCliInProcess(['locations', 'list'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('run `envdata migrate` first');

    const run = await runCliInProcess(['migrate'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // Overcast: 24 cloud covers 0.01 → set aside. Mixed: 24 of each field filled. Captured:
    // 24 cloud covers 0.01 → 1 (the field's unit now known, from the mixed day).
    expect(run.stdout).toContain(
      'share units, now decided per field: 120 weather value(s) repaired from 3 archived answer(s), 0 calls (humidity 24, cloudCover 72, precipProbability 24); 24 record(s) still have a share set aside (its unit unknown: see `envdata status`; `envdata rebuild --dataset weather` fills them once an answer tells it)',
    );
    expect(await sharesByDay(db)).toEqual([
      { day: '2024-05-01', humidity: 0.85, cloudCover: null, precip: 0, hours: 24 },
      { day: '2024-05-02', humidity: 0.81, cloudCover: 0.83, precip: 0.02, hours: 24 },
      { day: '2024-05-03', humidity: 0.92, cloudCover: 1, precip: 0, hours: 24 },
    ]);
    const quarantine = await db
      .selectFrom('quarantine')
      .select(['reason', 'observed_at'])
      .orderBy('observed_at')
      .execute();
    expect(quarantine).toHaveLength(24);
    expect(quarantine[0]).toEqual({
      observed_at: new Date('2024-05-01T00:00:00Z'),
      reason:
        "share unit unknown: cloudCover 1 not landed (every value of the field in the answer is 0 or 1, which reads as a fraction and as a percentage alike, and no earlier answer of this source taught its unit); the record's other values landed",
    });
    expect(await db.selectFrom('chunk').select(['chunk_id', 'calls']).execute()).toEqual(
      callsBefore,
    );
    expect(await db.selectFrom('pending_repair').selectAll().execute()).toEqual([]);
    // The rows of 0021, decided for whole answers, are gone: no field inherits them.
    expect(await db.selectFrom('share_unit').selectAll().execute()).toEqual([]);

    // Made once: a second migrate has nothing to repair and says nothing of it.
    const again = await runCliInProcess(['migrate'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('share units');
  });
});
