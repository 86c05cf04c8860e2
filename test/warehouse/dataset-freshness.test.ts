import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
const H = 3_600_000;
const DAY = 24 * H;
const START = new Date('2024-06-01T00:00:00Z');
const at = (hours: number) => new Date(START.getTime() + hours * H);

/** `analytics.dataset_freshness`, by dataset. */
async function freshness(): Promise<
  Record<string, { complete_through: Date | null; locations: number }>
> {
  const { rows } = await sql<{ dataset: string; complete_through: Date | null; locations: number }>`
    select dataset, complete_through, locations from analytics.dataset_freshness`.execute(
    wh.app.db,
  );
  return Object.fromEntries(rows.map(({ dataset, ...rest }) => [dataset, rest]));
}

/** Its `history_complete_through`, by dataset: complete history, holes in the past included. */
async function history(): Promise<Record<string, Date | null>> {
  const { rows } = await sql<{ dataset: string; history_complete_through: Date | null }>`
    select dataset, history_complete_through from analytics.dataset_freshness`.execute(wh.app.db);
  return Object.fromEntries(rows.map((r) => [r.dataset, r.history_complete_through]));
}

function landWeather(locationId: number, fromHour: number, toHour: number): Promise<void> {
  return wh.landWeather(locationId, { from: at(fromHour), to: at(toHour) });
}

let vienna: number;
let lyon: number;

describe('analytics.dataset_freshness', () => {
  beforeAll(async () => {
    expect(await freshness()).toEqual({
      pollen: { complete_through: null, locations: 0 },
      weather: { complete_through: null, locations: 0 },
    });
    vienna = (
      await wh.addLocation({ name: 'Vienna', lat: 48.2082, lng: 16.3738, countryCode: 'AT' })
    ).locationId;
    lyon = (await wh.addLocation({ name: 'Lyon', lat: 45.764, lng: 4.8357, countryCode: 'FR' }))
      .locationId;
    // Vienna: a day, a day not fetched, a day; Lyon: the three days.
    await landWeather(vienna, 0, 24);
    await landWeather(vienna, 48, 72);
    await landWeather(lyon, 0, 72);
  });

  it('is as fresh as the newest hour of its least fresh location: a hole in the past is no lag', async () => {
    expect((await freshness()).weather).toEqual({ complete_through: at(71), locations: 2 });
  });

  it('keeps its history complete only up to the first hole not fetched, however new the rows after it', async () => {
    expect((await history()).weather).toEqual(new Date(START.getTime() + DAY - H));
  });

  it('is null for a dataset some location has no hour of', async () => {
    expect((await freshness()).pollen).toEqual({ complete_through: null, locations: 2 });
  });

  it('counts a recorded hole as known: the ledger has an answer for it', async () => {
    await sql`
      insert into envdata.coverage_hole (location_id, dataset, hours, cause)
      values (${vienna}, 'weather', tstzrange(${at(24)}, ${at(48)}), 'missing_upstream')`.execute(
      wh.app.db,
    );
    expect((await freshness()).weather?.complete_through).toEqual(at(71));
    expect((await history()).weather).toEqual(at(71));
  });

  it('waits for a new location, and leaves a retired one out', async () => {
    const berlin = (
      await wh.addLocation({ name: 'Berlin', lat: 52.52, lng: 13.405, countryCode: 'DE' })
    ).locationId;
    expect((await freshness()).weather).toEqual({ complete_through: null, locations: 3 });
    await sql`update envdata.location set retired_at = now() where location_id = ${berlin}`.execute(
      wh.app.db,
    );
    expect((await freshness()).weather).toEqual({ complete_through: at(71), locations: 2 });
  });
});
