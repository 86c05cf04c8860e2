import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { fillSetAsideShares } from '../../src/landing/fill-set-aside-shares.js';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { RunCloser } from '../../src/ledger/run-closer.js';
import { recordShareUnits } from '../../src/ledger/share-unit.js';
import { hoursBetween } from '../fixtures/payload-bodies.js';
import { captureLogger } from '../harness/capture-logger.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

/** An overcast day's answer: humidity 85 (%), cloud cover 1 in every hour, dry. */
function overcastAnswer(from: string, to: string): string {
  return JSON.stringify({
    status: 'success',
    data: {
      lat: -27.47,
      lng: 153.03,
      history: hoursBetween(from, to).map((at) => ({
        time: at.getTime() / 1000,
        temperature: 14,
        humidity: 85,
        cloudCover: 1,
        precipProbability: 0,
      })),
    },
  });
}

describe('fillSetAsideShares, before a run closes', () => {
  it('fills the shares a run set aside once their unit is known, from the archive, and only then; the run then closes done', async () => {
    const db = wh.app.db;
    const { logger } = captureLogger();
    const brisbane = await wh.addLocation({ name: 'Brisbane', lat: -27.47, lng: 153.03 });
    const window = { from: new Date('2024-06-22T00:00:00Z'), to: new Date('2024-06-23T00:00:00Z') };
    const landing = await wh.landingOf(
      'weather',
      brisbane.locationId,
      window,
      overcastAnswer('2024-06-22T00:00:00Z', '2024-06-23T00:00:00Z'),
    );
    await new FactWriter(db, { archiveRaw: true }).land([landing]);
    const { run_id: runId } = await db
      .selectFrom('chunk')
      .select('run_id')
      .where('chunk_id', '=', landing.chunkId)
      .executeTakeFirstOrThrow();
    await sql`update envdata.run set status = 'running' where run_id = ${runId}`.execute(db);
    const cloud = async () =>
      new Set(
        (
          await db
            .selectFrom('weather_hourly')
            .select('cloud_cover_fraction')
            .where('location_id', '=', brisbane.locationId)
            .execute()
        ).map((r) => r.cloud_cover_fraction),
      );
    expect(await cloud()).toEqual(new Set([null]));
    const quarantined = () =>
      db
        .selectFrom('quarantine')
        .select('reason')
        .where('chunk_id', '=', landing.chunkId)
        .execute();
    expect(await quarantined()).toHaveLength(24);

    // Nothing known of cloud cover (humidity's unit says nothing of it): nothing to read again.
    await recordShareUnits(db, 'weather', 'history', { humidity: 'percent' });
    expect(await fillSetAsideShares(db, logger, { runId: runId! })).toBe(0);
    expect(await quarantined()).toHaveLength(24);

    // A later answer told cloud cover's unit: the run's close fills it first.
    await recordShareUnits(db, 'weather', 'history', { cloudCover: 'fraction' });
    const closer = new RunCloser(db, {
      logger,
      beforeClose: async (id) => {
        await fillSetAsideShares(db, logger, { runId: id });
      },
    });
    expect(await closer.close(runId!)).toBe('done');
    expect(await cloud()).toEqual(new Set([1]));
    expect(await quarantined()).toEqual([]);
  });
});
