import type { Kysely } from 'kysely';
import { recordShareUnits } from '../../src/ledger/share-unit.js';
import { CURRENT_SHAPES, percentSharesOf } from '../../src/simulator/render/shape-variants.js';
import type { Database } from '../../src/warehouse/schema.js';

/**
 * Remembers the unit the simulator's current shape writes each weather share in, as the ledger
 * of a warehouse that has had one telling history answer does (`envdata.share_unit`).
 *
 * The simulator keeps some days overcast from hour to hour (a stratus deck: cloud cover exactly
 * 1 all day, most often in winter), and an answer of nothing but 0s and 1s cannot tell its unit.
 * A fresh warehouse rightly sets such a day aside, so a test that backfills a day or two before
 * today would pass or fail by the calendar (Berlin's 2026-11-28 and -29 are such days). A test
 * whose subject is not the share unit calls this once; the tests of the share unit start
 * without it.
 */
export async function rememberSimulatorShareUnits(db: Kysely<Database>): Promise<void> {
  const percent = percentSharesOf(CURRENT_SHAPES);
  const unit = (isPercent: boolean) => (isPercent ? 'percent' : 'fraction');
  await recordShareUnits(db, 'weather', 'history', {
    humidity: unit(percent.humidity),
    cloudCover: unit(percent.cloudCover),
    precipProbability: unit(percent.precipProbability),
  });
}
