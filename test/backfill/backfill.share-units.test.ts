import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { rebuildFromArchive } from '../../src/ingest/rebuild-from-archive.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import type { Database } from '../../src/warehouse/schema.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import {
  backfillRange,
  useBackfillFixture,
  type BackfillFixture,
} from '../harness/backfill-fixture.js';
import { captureLogger } from '../harness/capture-logger.js';
import { waitForRun } from '../harness/wait-for-run.js';

// Every weather answer writes humidity, cloud cover and precipitation probability as whole
// percentages (the `percentages` shape), archived so that a rebuild can read them again. The
// reference is the same service writing fractions.
const fx = useBackfillFixture(
  { legacyShapes: { percentages: true } },
  { ENVDATA_ARCHIVE_RAW: 'true' },
);
const reference = useBackfillFixture();

interface Shares {
  readonly location: string;
  readonly at: string;
  readonly temperature: number | null;
  readonly humidity: number | null;
  readonly cloudCover: number | null;
  readonly precipProbability: number | null;
}

/** The shares (and temperature) landed in `[from, to)`, in location and hour order. */
async function sharesIn(db: Kysely<Database>, from: string, to: string): Promise<Shares[]> {
  const { rows } = await sql<Shares>`
    select l.name as location, to_char(w.observed_at at time zone 'UTC', 'YYYY-MM-DD HH24') as at,
      w.temperature_c as temperature, w.humidity_fraction as humidity,
      w.cloud_cover_fraction as "cloudCover", w.precip_probability_fraction as "precipProbability"
    from envdata.weather_hourly w join envdata.location l using (location_id)
    where w.observed_at >= ${new Date(from)} and w.observed_at < ${new Date(to)}
    order by l.name, w.observed_at`.execute(db);
  return rows;
}

/** Backfills weather over `[from, to)` at the fixture's locations named `names`; the run ends done. */
async function backfillWeather(f: BackfillFixture, from: string, to: string, names: string[]) {
  const locations = f.locations.filter((l) => names.includes(l.name));
  const start = await startBackfill(f.app, {
    ...backfillRange(from, to, { datasets: ['weather'] }),
    locations,
  });
  const worker = IngestWorker.start(f.app, { concurrency: 2 });
  try {
    const progress = await waitForRun(f.app.db, start.runId!);
    expect(progress).toMatchObject({ status: 'done', failed: 0 });
  } finally {
    await worker.close();
  }
  return start.runId!;
}

async function rememberedUnits(db: Kysely<Database>) {
  return db.selectFrom('share_unit').select(['dataset', 'source', 'unit']).execute();
}

describe('share units are decided per answer, never per value', () => {
  it('an answer that cannot tell, with nothing remembered, lands all but its shares, which it quarantines with the reason', async () => {
    // Every share of the answer is 1 or 0: 1 % and 0 % here, 100 % and 0 % as fractions.
    fx.simulator.setFaults('weather-history:ambiguous x1');
    const runId = await backfillWeather(fx, '2024-06-02', '2024-06-04', ['Berlin']);
    expect(fx.simulator.stats().faults).toEqual({ ambiguous: 1 });

    const landed = await sharesIn(fx.app.db, '2024-06-02', '2024-06-04');
    expect(landed).toHaveLength(48);
    for (const row of landed) {
      expect(row).toMatchObject({ humidity: null, cloudCover: null, precipProbability: null });
      expect(row.temperature).not.toBeNull();
    }
    const quarantine = await fx.app.db
      .selectFrom('quarantine')
      .select(['reason', 'observed_at'])
      .where('run_id', '=', runId)
      .execute();
    expect(quarantine).toHaveLength(48);
    expect(
      new Set(quarantine.map((q) => q.reason.replace(/^share unit unknown: [^(]*/, ''))),
    ).toEqual(
      new Set([
        "(every share of the answer is 0 or 1, which reads as fractions and as percentages alike, and no earlier answer of this source taught the unit); the record's other values landed",
      ]),
    );
    expect(quarantine[0]!.reason).toMatch(
      /^share unit unknown: humidity 1, cloudCover 1, precipProbability 0 not landed/,
    );
    expect(await rememberedUnits(fx.app.db)).toEqual([]);
  });

  it('answers of whole percentages land as the fractions the service meant (1 % as 0.01), and teach the unit', async () => {
    fx.simulator.setFaults({});
    await backfillWeather(fx, '2024-06-04', '2024-06-10', ['Berlin', 'Brisbane']);
    await backfillWeather(reference, '2024-06-04', '2024-06-10', ['Berlin', 'Brisbane']);
    const shares = await sharesIn(fx.app.db, '2024-06-04', '2024-06-10');
    expect(shares).toHaveLength(2 * 144);
    expect(shares).toEqual(await sharesIn(reference.app.db, '2024-06-04', '2024-06-10'));
    // The answers held shares of 1 %, which a per-value reading took for 100 %.
    const onePercent = shares.filter((s) =>
      [s.humidity, s.cloudCover, s.precipProbability].some(
        (v) => v !== null && Math.abs(v - 0.01) < 1e-6,
      ),
    );
    expect(onePercent.length).toBeGreaterThan(0);
    expect(await rememberedUnits(fx.app.db)).toEqual([
      { dataset: 'weather', source: 'history', unit: 'percent' },
    ]);
    expect(await rememberedUnits(reference.app.db)).toEqual([
      { dataset: 'weather', source: 'history', unit: 'fraction' },
    ]);
  });

  it('an answer that cannot tell takes the unit the last answers told', async () => {
    fx.simulator.setFaults('weather-history:ambiguous x1');
    await backfillWeather(fx, '2024-06-10', '2024-06-12', ['Berlin']);
    const landed = await sharesIn(fx.app.db, '2024-06-10', '2024-06-12');
    expect(landed).toHaveLength(48);
    for (const row of landed) {
      expect(row.humidity).toBeCloseTo(0.01, 6);
      expect(row.cloudCover).toBeCloseTo(0.01, 6);
      expect(row.precipProbability).toBe(0);
    }
    // The same fault at the fraction-writing service means 100 %.
    reference.simulator.setFaults('weather-history:ambiguous x1');
    await backfillWeather(reference, '2024-06-10', '2024-06-12', ['Berlin']);
    for (const row of await sharesIn(reference.app.db, '2024-06-10', '2024-06-12')) {
      expect(row).toMatchObject({ humidity: 1, cloudCover: 1, precipProbability: 0 });
    }
  });

  it('a rebuild from the archive decides as ingestion does', async () => {
    const before = await sharesIn(fx.app.db, '2024-06-04', '2024-06-12');
    await sql`delete from envdata.weather_hourly where observed_at >= '2024-06-04'`.execute(
      fx.app.db,
    );
    const { logger } = captureLogger();
    const outcome = await rebuildFromArchive(
      fx.app.db,
      { datasets: ['weather'], from: new Date('2024-06-04T00:00:00Z') },
      logger,
    );
    expect(outcome.failed).toEqual([]);
    expect(await sharesIn(fx.app.db, '2024-06-04', '2024-06-12')).toEqual(before);
  });

  it('a rebuild after the unit was told fills the shares an answer that could not tell set aside, and clears their quarantine', async () => {
    const { logger } = captureLogger();
    const outcome = await rebuildFromArchive(fx.app.db, { datasets: ['weather'] }, logger);
    expect(outcome.failed).toEqual([]);
    for (const row of await sharesIn(fx.app.db, '2024-06-02', '2024-06-04')) {
      expect(row.humidity).toBeCloseTo(0.01, 6);
      expect(row.cloudCover).toBeCloseTo(0.01, 6);
      expect(row.precipProbability).toBe(0);
    }
    const left = await fx.app.db
      .selectFrom('quarantine')
      .select('reason')
      .where('reason', 'like', 'share unit unknown:%')
      .execute();
    expect(left).toEqual([]);
  });
});
