import { describe, expect, it } from 'vitest';
import { ledgerShareUnitMemory, shareUnitsFor } from '../../src/ingest/share-unit-memory.js';
import { readShareUnits, recordShareUnits } from '../../src/ledger/share-unit.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

async function updatedAt(source: 'history' | 'latest'): Promise<Date | undefined> {
  const row = await wh.app.db
    .selectFrom('share_unit')
    .select('updated_at')
    .where('dataset', '=', 'weather')
    .where('source', '=', source)
    .where('field', '=', 'humidity')
    .executeTakeFirst();
  return row?.updated_at;
}

describe('envdata.share_unit', () => {
  it('remembers the unit the last answer that told was in, per dataset, source and field', async () => {
    const { db } = wh.app;
    expect(await readShareUnits(db, 'weather', 'history')).toEqual({});
    await recordShareUnits(db, 'weather', 'history', {
      humidity: 'percent',
      cloudCover: 'fraction',
    });
    expect(await readShareUnits(db, 'weather', 'history')).toEqual({
      humidity: 'percent',
      cloudCover: 'fraction',
    });
    expect(await readShareUnits(db, 'weather', 'latest')).toEqual({});
    const first = await updatedAt('history');
    // The same unit again writes nothing; another one replaces it, for that field alone.
    await recordShareUnits(db, 'weather', 'history', { humidity: 'percent' });
    expect(await updatedAt('history')).toEqual(first);
    await recordShareUnits(db, 'weather', 'history', { humidity: 'fraction' });
    expect(await readShareUnits(db, 'weather', 'history')).toEqual({
      humidity: 'fraction',
      cloudCover: 'fraction',
    });
  });

  it('shareUnitsFor: a told field is learned, a field that cannot tell recalls its own, a contradictory one gets none', async () => {
    const memory = ledgerShareUnitMemory(wh.app.db);
    const verdicts = (
      humidity: 'percent' | 'fraction' | 'cannot-tell' | 'contradictory',
      cloudCover: 'percent' | 'fraction' | 'cannot-tell' | 'contradictory',
    ) => ({ humidity, cloudCover, precipProbability: 'only-zeros' as const });
    expect(
      await shareUnitsFor(memory, 'weather', 'latest', verdicts('cannot-tell', 'cannot-tell')),
    ).toEqual({});
    // humidity 92 beside cloud cover 0.4: each field its own unit.
    expect(
      await shareUnitsFor(memory, 'weather', 'latest', verdicts('percent', 'fraction')),
    ).toEqual({ humidity: 'percent', cloudCover: 'fraction' });
    expect(
      await shareUnitsFor(memory, 'weather', 'latest', verdicts('cannot-tell', 'cannot-tell')),
    ).toEqual({ humidity: 'percent', cloudCover: 'fraction' });
    expect(
      await shareUnitsFor(memory, 'weather', 'latest', verdicts('contradictory', 'cannot-tell')),
    ).toEqual({ cloudCover: 'fraction' });
    // Another worker's memory sees what this one learned.
    const other = ledgerShareUnitMemory(wh.app.db);
    expect(
      await shareUnitsFor(other, 'weather', 'latest', verdicts('cannot-tell', 'percent')),
    ).toEqual({ humidity: 'percent', cloudCover: 'percent' });
    expect(
      await shareUnitsFor(memory, 'weather', 'latest', verdicts('fraction', 'cannot-tell')),
    ).toEqual({ humidity: 'fraction', cloudCover: 'percent' });
    // The last answer that tells wins on every worker: back to percent through the other one,
    // though this one learned percent before and fraction since.
    await shareUnitsFor(other, 'weather', 'latest', verdicts('percent', 'cannot-tell'));
    expect(
      await shareUnitsFor(memory, 'weather', 'latest', verdicts('cannot-tell', 'cannot-tell')),
    ).toEqual({ humidity: 'percent', cloudCover: 'percent' });
    // And a unit this worker learned before, told again after another changed it, is written.
    await shareUnitsFor(memory, 'weather', 'latest', verdicts('fraction', 'cannot-tell'));
    await shareUnitsFor(other, 'weather', 'latest', verdicts('percent', 'cannot-tell'));
    await shareUnitsFor(memory, 'weather', 'latest', verdicts('fraction', 'cannot-tell'));
    expect((await readShareUnits(wh.app.db, 'weather', 'latest')).humidity).toBe('fraction');
  });
});
