import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { rebuildFromArchive } from '../../src/landing/rebuild-from-archive.js';
import { hoursBetween, pollenHistoryBody, weatherHistoryBody } from '../fixtures/payload-bodies.js';
import { captureLogger } from '../harness/capture-logger.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let paris: number;

/**
 * Each row's values and the SHA-256 of the answer they came from: a rebuild lands an archived
 * answer again as a new answer (`answer_id`) of the same body.
 */
const SOURCE = sql`lateral (select (to_jsonb(t) - 'answer_id')::text
  || encode(a.body_sha256, 'hex') as digest from envdata.answer a where a.answer_id = t.answer_id) x`;

async function warehouseFingerprint(): Promise<unknown> {
  const { rows } = await sql<{ w: string; p: string; s: string }>`
    select
      (select md5(string_agg(x.digest, '|' order by observed_at)) from envdata.weather_hourly t
        cross join ${SOURCE}) as w,
      (select md5(string_agg(x.digest, '|' order by observed_at, pollen_type)) from envdata.pollen_hourly t
        cross join ${SOURCE}) as p,
      (select md5(string_agg(x.digest, '|' order by observed_at, species_id))
        from envdata.pollen_species_hourly t cross join ${SOURCE}) as s`.execute(wh.app.db);
  return rows[0];
}

beforeAll(async () => {
  paris = (await wh.addLocation({ name: 'Paris', lat: 48.8566, lng: 2.3522, countryCode: 'FR' }))
    .locationId;
  const writer = new FactWriter(wh.app.db, { archiveRaw: true });
  const from = '2024-05-01T00:00:00Z';
  const to = '2024-05-03T00:00:00Z';
  const window = { from: new Date(from), to: new Date(to) };
  await writer.land([
    await wh.landingOf('weather', paris, window, weatherHistoryBody(hoursBetween(from, to))),
    await wh.landingOf('pollen', paris, window, pollenHistoryBody(hoursBetween(from, to))),
  ]);
});

describe('rebuildFromArchive (envdata rebuild)', () => {
  it('restores lost fact rows exactly from the raw payloads, with no API call', async () => {
    const before = await warehouseFingerprint();
    await sql`delete from envdata.weather_hourly; delete from envdata.pollen_hourly; delete from envdata.pollen_species_hourly`.execute(
      wh.app.db,
    );
    const { logger } = captureLogger();
    const outcome = await rebuildFromArchive(
      wh.app.db,
      { datasets: ['pollen', 'weather'] },
      logger,
    );
    expect(outcome).toMatchObject({ chunks: 2, rows: 48 + 48 * 8, failed: [] });
    expect(outcome.rowsWritten).toBe(outcome.rows);
    expect(await warehouseFingerprint()).toEqual(before);
    const calls = await wh.app.db.selectFrom('chunk').select('calls').execute();
    expect(calls.map((c) => c.calls)).toEqual([1, 1]);
  });

  it('is idempotent and honours the dataset filter', async () => {
    const { logger } = captureLogger();
    const outcome = await rebuildFromArchive(wh.app.db, { datasets: ['weather'] }, logger);
    expect(outcome).toMatchObject({ chunks: 1, rows: 48, rowsWritten: 0 });
  });
});
