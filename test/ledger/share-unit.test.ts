import { describe, expect, it } from 'vitest';
import { ledgerShareUnitMemory, shareUnitFor } from '../../src/ingest/share-unit-memory.js';
import { readShareUnit, recordShareUnit } from '../../src/ledger/share-unit.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

async function updatedAt(source: 'history' | 'latest'): Promise<Date | undefined> {
  const row = await wh.app.db
    .selectFrom('share_unit')
    .select('updated_at')
    .where('dataset', '=', 'weather')
    .where('source', '=', source)
    .executeTakeFirst();
  return row?.updated_at;
}

describe('envdata.share_unit', () => {
  it('remembers the unit the last answer that told was in, per dataset and source', async () => {
    const { db } = wh.app;
    expect(await readShareUnit(db, 'weather', 'history')).toBeUndefined();
    await recordShareUnit(db, 'weather', 'history', 'percent');
    expect(await readShareUnit(db, 'weather', 'history')).toBe('percent');
    expect(await readShareUnit(db, 'weather', 'latest')).toBeUndefined();
    const first = await updatedAt('history');
    // The same unit again writes nothing; another one replaces it.
    await recordShareUnit(db, 'weather', 'history', 'percent');
    expect(await updatedAt('history')).toEqual(first);
    await recordShareUnit(db, 'weather', 'history', 'fraction');
    expect(await readShareUnit(db, 'weather', 'history')).toBe('fraction');
  });

  it('shareUnitFor: a told unit is learned, cannot-tell recalls it, a contradictory answer gets none', async () => {
    const memory = ledgerShareUnitMemory(wh.app.db);
    expect(await shareUnitFor(memory, 'weather', 'latest', 'cannot-tell')).toBeUndefined();
    expect(await shareUnitFor(memory, 'weather', 'latest', 'percent')).toBe('percent');
    expect(await shareUnitFor(memory, 'weather', 'latest', 'cannot-tell')).toBe('percent');
    expect(await shareUnitFor(memory, 'weather', 'latest', 'contradictory')).toBeUndefined();
    // Another worker's memory sees what this one learned.
    const other = ledgerShareUnitMemory(wh.app.db);
    expect(await shareUnitFor(other, 'weather', 'latest', 'cannot-tell')).toBe('percent');
    expect(await shareUnitFor(other, 'weather', 'latest', 'fraction')).toBe('fraction');
    expect(await shareUnitFor(memory, 'weather', 'latest', 'cannot-tell')).toBe('fraction');
  });
});
