import { describe, expect, it } from 'vitest';
import { snapshotSourceOf } from '../../src/datasets/snapshot-source-of.js';
import { weatherShareUnits } from '../../src/datasets/weather/normalize-weather.js';
import { fillSnapshotSetAside } from '../../src/ingest/fill-snapshot-set-aside.js';
import { recordSnapshotSetAside } from '../../src/ledger/record-snapshot-set-aside.js';
import { recordShareUnits } from '../../src/ledger/share-unit.js';
import { parseWeatherBody } from '../../src/service/parse-weather-body.js';
import type { ShareField } from '../../src/types.js';
import { SpeciesIds } from '../../src/warehouse/species-ids.js';
import { writeSnapshot } from '../../src/warehouse/write-snapshot.js';
import { captureLogger } from '../harness/capture-logger.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

const H1 = new Date('2024-07-05T00:00:00Z');
const H2 = new Date('2024-07-05T01:00:00Z');

/** A two-hour forecast with the shares given per hour. */
function forecast(hours: readonly { humidity: number; cloudCover: number }[]) {
  return parseWeatherBody(
    JSON.stringify({
      status: 'success',
      data: {
        lat: 52.52,
        lng: 13.405,
        forecast: hours.map((h, i) => ({
          time: (i === 0 ? H1 : H2).getTime() / 1000,
          temperature: 14,
          precipProbability: 0,
          ...h,
        })),
      },
    }),
  );
}

/** Stores the forecast fetched at `fetchedAt` as the snapshot job does, nothing remembered. */
async function storeSetAside(
  locationId: number,
  runId: number,
  fetchedAt: Date,
  payload: ReturnType<typeof forecast>,
) {
  const source = snapshotSourceOf('weather', 'forecast_72h');
  const verdicts = weatherShareUnits(payload);
  await writeSnapshot(
    wh.app.db,
    new SpeciesIds(),
    { locationId, dataset: 'weather', product: 'forecast_72h', fetchedAt },
    source.toRows(payload, {}),
  );
  await recordSnapshotSetAside(
    wh.app.db,
    {
      runId,
      locationId,
      source: 'weather_forecast_72h',
      fetchedAt,
      unitUntold: Object.entries(verdicts)
        .filter(([, v]) => v === 'cannot-tell')
        .map(([f]) => f as ShareField),
    },
    source.setAside(payload, {}),
  );
}

describe('fillSnapshotSetAside', () => {
  it('fills only the fields an answer could not tell, in the unit now known, in the fetch that set them aside (its current copy only if current), and rewrites what is left', async () => {
    const db = wh.app.db;
    const { logger } = captureLogger();
    const berlin = await wh.addLocation({ name: 'Berlin', lat: 52.52, lng: 13.405 });
    // Two syncs: a sync stores one snapshot of each product per location.
    const [runId, laterRunId] = await Promise.all(
      [0, 1].map(async () => {
        const run = await db
          .insertInto('run')
          .values({ kind: 'sync', status: 'done' })
          .returning('run_id')
          .executeTakeFirstOrThrow();
        return run.run_id;
      }),
    );
    // Fetch A: cloud cover 1 and 0 cannot tell; humidity 50 beside 0.5 contradicts itself.
    const fetchedA = new Date('2024-07-05T00:10:00Z');
    await storeSetAside(
      berlin.locationId,
      runId!,
      fetchedA,
      forecast([
        { humidity: 50, cloudCover: 1 },
        { humidity: 0.5, cloudCover: 0 },
      ]),
    );
    // Fetch B, later, the current one: its cloud cover contradicts itself (never filled).
    const fetchedB = new Date('2024-07-05T00:40:00Z');
    await storeSetAside(
      berlin.locationId,
      laterRunId!,
      fetchedB,
      forecast([
        { humidity: 0.4, cloudCover: 50 },
        { humidity: 0.4, cloudCover: 0.5 },
      ]),
    );
    const reasons = async () =>
      (
        await db
          .selectFrom('quarantine')
          .select(['observed_at', 'reason', 'raw'])
          .where('run_id', 'in', [runId!, laterRunId!])
          .execute()
      )
        .map((q) => [
          (q.raw as { _envdata: { fetchedAt: string } })._envdata.fetchedAt,
          q.observed_at?.toISOString(),
          q.reason.slice(0, q.reason.indexOf(' not landed')),
        ])
        .sort((a, b) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`));
    const before = await reasons();
    expect(before).toEqual([
      [fetchedA.toISOString(), H1.toISOString(), 'share unit unknown: humidity 50, cloudCover 1'],
      [fetchedA.toISOString(), H2.toISOString(), 'share unit unknown: humidity 0.5'],
      [fetchedB.toISOString(), H1.toISOString(), 'share unit unknown: cloudCover 50'],
      [fetchedB.toISOString(), H2.toISOString(), 'share unit unknown: cloudCover 0.5'],
    ]);
    const stored = (table: 'weather_snapshot' | 'weather_snapshot_current') =>
      db
        .selectFrom(table)
        .select(['fetched_at', 'valid_at', 'humidity_fraction', 'cloud_cover_fraction'])
        .where('location_id', '=', berlin.locationId)
        .orderBy('fetched_at')
        .orderBy('valid_at')
        .execute();
    const snapshotsBefore = await stored('weather_snapshot');
    const currentBefore = await stored('weather_snapshot_current');

    // Nothing known yet for the forecast: nothing to fill. A unit the latest reading taught
    // is not the forecast's.
    await recordShareUnits(db, 'weather', 'latest', { cloudCover: 'percent', humidity: 'percent' });
    expect(
      await fillSnapshotSetAside(db, logger, { dataset: 'weather', product: 'forecast_72h' }),
    ).toEqual({ records: 0, partly: 0, values: 0 });

    await recordShareUnits(db, 'weather', 'forecast_72h', {
      cloudCover: 'percent',
      humidity: 'fraction',
    });
    expect(
      await fillSnapshotSetAside(db, logger, { dataset: 'weather', product: 'forecast_72h' }),
    ).toEqual({ records: 0, partly: 1, values: 1 });
    // A's cloud cover 1, read as a percentage, is 0.01; all else as it was.
    expect(await stored('weather_snapshot')).toEqual(
      snapshotsBefore.map((r) =>
        r.fetched_at.getTime() === fetchedA.getTime() && r.valid_at.getTime() === H1.getTime()
          ? { ...r, cloud_cover_fraction: 0.01 }
          : r,
      ),
    );
    // The current copy holds fetch B: untouched.
    expect(currentBefore.map((r) => r.fetched_at)).toEqual([fetchedB, fetchedB]);
    expect(await stored('weather_snapshot_current')).toEqual(currentBefore);
    expect(await reasons()).toEqual([
      [fetchedA.toISOString(), H1.toISOString(), 'share unit unknown: humidity 50'],
      ...before.slice(1),
    ]);
    const [rewritten] = await db
      .selectFrom('quarantine')
      .select('reason')
      .where('run_id', '=', runId!)
      .where('reason', 'like', '%humidity 50 not landed%')
      .execute();
    expect(rewritten?.reason).toMatch(/ not landed \(.+\); the record's other values landed$/);

    // Again: nothing left that a known unit may fill.
    expect(
      await fillSnapshotSetAside(db, logger, { dataset: 'weather', product: 'forecast_72h' }),
    ).toEqual({ records: 0, partly: 0, values: 0 });
  });
});
