import { beforeAll, describe, expect, it } from 'vitest';
import { findGaps } from '../../src/planner/find-gaps.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
let lima: number;
const d = (day: string) => new Date(`${day}T00:00:00Z`);

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
  lima = (await wh.addLocation({ name: 'Lima', lat: -12.0464, lng: -77.0428, countryCode: 'PE' }))
    .locationId;
  for (const [from, to, status] of [
    ['2020-01-02', '2020-01-04', 'done'],
    ['2020-01-06', '2020-01-07', 'done'],
    ['2020-01-07', '2020-01-08', 'failed'],
  ] as const) {
    const id = await wh.planChunk('weather', oslo, d(from), d(to));
    await wh.app.db.updateTable('chunk').set({ status }).where('chunk_id', '=', id).execute();
  }
});

const span = (g: { from: Date; to: Date }) => [
  g.from.toISOString().slice(0, 10),
  g.to.toISOString().slice(0, 10),
];

describe('findGaps', () => {
  it('subtracts what the ledger holds as done, whatever windows it was done in', async () => {
    const gaps = await findGaps(wh.app.db, {
      datasets: ['weather'],
      locationIds: [oslo, lima],
      from: d('2020-01-01'),
      to: d('2020-01-10'),
    });
    expect(gaps.filter((g) => g.locationId === oslo).map(span)).toEqual([
      ['2020-01-01', '2020-01-02'],
      ['2020-01-04', '2020-01-06'],
      ['2020-01-07', '2020-01-10'],
    ]);
    expect(gaps.filter((g) => g.locationId === lima).map(span)).toEqual([
      ['2020-01-01', '2020-01-10'],
    ]);
  });

  it("clips to the dataset's coverage and to the last complete hour", async () => {
    const now = new Date('2016-01-03T10:30:00Z');
    const gaps = await findGaps(wh.app.db, {
      datasets: ['pollen'],
      locationIds: [lima],
      from: d('2015-06-01'),
      to: d('2030-01-01'),
      now,
    });
    expect(gaps.map((g) => [g.from.toISOString(), g.to.toISOString()])).toEqual([
      ['2016-01-01T00:00:00.000Z', '2016-01-03T10:00:00.000Z'],
    ]);
  });

  it('finds nothing for a range entirely before coverage', async () => {
    const gaps = await findGaps(wh.app.db, {
      datasets: ['weather'],
      locationIds: [oslo],
      from: d('1980-01-01'),
      to: d('1989-12-31'),
    });
    expect(gaps).toEqual([]);
  });
});
