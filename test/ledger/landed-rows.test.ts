import { beforeAll, describe, expect, it } from 'vitest';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { hoursBetween, weatherHistoryBody } from '../fixtures/payload-bodies.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
const at = (instant: string) => new Date(`${instant}Z`);

/** Lands a complete weather answer for Oslo over `[from, to)`, as a chunk of a run of its own. */
async function land(from: string, to: string): Promise<{ chunkId: number; runId: number }> {
  const window = { from: at(from), to: at(to) };
  const body = weatherHistoryBody(hoursBetween(window.from.toISOString(), window.to.toISOString()));
  const landing = await wh.landingOf('weather', oslo, window, body, { expected: window });
  await new FactWriter(wh.app.db, { archiveRaw: false }).land([landing]);
  const chunk = await wh.app.db
    .selectFrom('chunk')
    .select(['run_id'])
    .where('chunk_id', '=', landing.chunkId)
    .executeTakeFirstOrThrow();
  return { chunkId: landing.chunkId, runId: chunk.run_id! };
}

async function landedRows(chunkId: number): Promise<number> {
  const row = await wh.app.db
    .selectFrom('chunk')
    .select('rows_landed')
    .where('chunk_id', '=', chunkId)
    .executeTakeFirstOrThrow();
  return row.rows_landed;
}

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
});

describe('run figures count rows that landed, not rows fetched again', () => {
  it('a re-read of hours another run landed counts only the hours new to the warehouse', async () => {
    const first = await land('2020-02-02T00:00:00', '2020-02-03T00:00:00');
    expect(await landedRows(first.chunkId)).toBe(24);
    // The same day read again (a lookback, a refetch): the facts are there, nothing is new.
    const again = await land('2020-02-02T00:00:00', '2020-02-03T00:00:00');
    expect(await landedRows(again.chunkId)).toBe(0);
    expect(await runProgress(wh.app.db, again.runId)).toMatchObject({ rows: 0, calls: 1 });
    // Half of it known: the other 12 hours count.
    const half = await land('2020-02-02T12:00:00', '2020-02-03T12:00:00');
    expect(await landedRows(half.chunkId)).toBe(12);
    // The runs' figures add up to what the warehouse holds.
    const { count } = await wh.app.db
      .selectFrom('weather_hourly')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('location_id', '=', oslo)
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(36);
  });
});
