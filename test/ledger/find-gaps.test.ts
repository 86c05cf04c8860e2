import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { findGaps } from '../../src/ledger/find-gaps.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
let lima: number;
const d = (day: string) => new Date(`${day}T00:00:00Z`);
const DAY = 86_400_000;

/** Lands Oslo's weather over the days `[from, to)` (`wh.landWeather`). */
const land = (from: string, to: string, options: { sentTo?: Date; noData?: boolean } = {}) =>
  wh.landWeather(oslo, { from: d(from), to: d(to) }, options);

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
  lima = (await wh.addLocation({ name: 'Lima', lat: -12.0464, lng: -77.0428, countryCode: 'PE' }))
    .locationId;
  await land('2020-01-02', '2020-01-04');
  await land('2020-01-06', '2020-01-07');
  // The service's "Data not available!": a clean zero, settled until ENVDATA_NO_DATA_RECHECK.
  await land('2020-01-08', '2020-01-09', { noData: true });
  // An answer that stops at noon: the afternoon is missing upstream.
  await land('2020-01-09', '2020-01-10', { sentTo: new Date('2020-01-09T12:00:00Z') });
});

const span = (g: { from: Date; to: Date }) => [g.from.toISOString(), g.to.toISOString()];

describe('findGaps', () => {
  it('subtracts the hours that landed or were answered "no data", whatever windows they came in', async () => {
    const gaps = await findGaps(wh.app.db, {
      datasets: ['weather'],
      locationIds: [oslo, lima],
      from: d('2020-01-01'),
      to: d('2020-01-11'),
      recheckMs: DAY,
    });
    expect(gaps.filter((g) => g.locationId === oslo).map(span)).toEqual([
      [d('2020-01-01').toISOString(), d('2020-01-02').toISOString()],
      [d('2020-01-04').toISOString(), d('2020-01-06').toISOString()],
      [d('2020-01-07').toISOString(), d('2020-01-08').toISOString()],
      [d('2020-01-10').toISOString(), d('2020-01-11').toISOString()],
    ]);
    expect(gaps.filter((g) => g.locationId === lima).map(span)).toEqual([
      [d('2020-01-01').toISOString(), d('2020-01-11').toISOString()],
    ]);
  });

  it('asks again for hours missing upstream once the recheck interval has passed', async () => {
    // Recorded two days ago: older than a one-day recheck interval.
    await sql`update envdata.coverage_hole set checked_at = now() - interval '2 days'
      where location_id = ${oslo}`.execute(wh.app.db);
    const gaps = await findGaps(wh.app.db, {
      datasets: ['weather'],
      locationIds: [oslo],
      from: d('2020-01-09'),
      to: d('2020-01-10'),
      recheckMs: DAY,
    });
    expect(gaps.map(span)).toEqual([['2020-01-09T12:00:00.000Z', '2020-01-10T00:00:00.000Z']]);
  });

  it("clips to the dataset's coverage and to the last complete hour", async () => {
    const now = new Date('2016-01-03T10:30:00Z');
    const gaps = await findGaps(wh.app.db, {
      datasets: ['pollen'],
      locationIds: [lima],
      from: d('2015-06-01'),
      to: d('2030-01-01'),
      recheckMs: DAY,
      now,
    });
    expect(gaps.map(span)).toEqual([['2016-01-01T00:00:00.000Z', '2016-01-03T10:00:00.000Z']]);
  });

  it('finds nothing for a range entirely before coverage', async () => {
    const gaps = await findGaps(wh.app.db, {
      datasets: ['weather'],
      locationIds: [oslo],
      from: d('1980-01-01'),
      to: d('1989-12-31'),
      recheckMs: DAY,
    });
    expect(gaps).toEqual([]);
  });

  describe('hours answered "no data"', () => {
    const noData = (noDataRecheckMs?: number | 'force') =>
      findGaps(wh.app.db, {
        datasets: ['weather'],
        locationIds: [oslo],
        from: d('2020-01-08'),
        to: d('2020-01-09'),
        recheckMs: DAY,
        ...(noDataRecheckMs !== undefined && { noDataRecheckMs }),
      }).then((gaps) => gaps.map(span));
    const window = [d('2020-01-08').toISOString(), d('2020-01-09').toISOString()];
    const answeredDaysAgo = (days: number) =>
      sql`update envdata.coverage_hole set checked_at = now() - make_interval(days => ${days})
        where location_id = ${oslo} and cause = 'no_data'`.execute(wh.app.db);

    it('are kept with the time of the answer, and asked again once ENVDATA_NO_DATA_RECHECK has passed', async () => {
      await answeredDaysAgo(0);
      expect(await noData(30 * DAY)).toEqual([]);
      await answeredDaysAgo(31);
      expect(await noData(30 * DAY)).toEqual([window]);
    });

    it('are never asked again with ENVDATA_NO_DATA_RECHECK=0, however old the answer', async () => {
      await answeredDaysAgo(3650);
      expect(await noData(0)).toEqual([]);
      expect(await noData()).toEqual([]);
    });

    it("are all asked again with 'force' (backfill --recheck-no-data), however recent the answer", async () => {
      await answeredDaysAgo(0);
      expect(await noData('force')).toEqual([window]);
    });
  });
});
