import { beforeAll, describe, expect, it } from 'vitest';
import { claimChunk } from '../../src/ledger/claim-chunk.js';
import { foldDoneChunks } from '../../src/ledger/fold-done-chunks.js';
import { planRunChunks } from '../harness/plan-run-chunks.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
const at = (instant: string) => new Date(`${instant}Z`);
const HOUR = 3_600_000;

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
});

describe('foldDoneChunks', () => {
  it("folds chunks finished before the retention into their run's totals, once; failed ones stay", async () => {
    const { runId, chunkIds } = await planRunChunks(wh.app.db, {
      dataset: 'weather',
      locationId: oslo,
      from: at('2022-08-01T00:00:00'),
      to: at('2022-08-05T00:00:00'),
      windowHours: 24,
    });
    const [old1, old2, failed, recent] = chunkIds;
    const finished = (ids: number[], status: 'done' | 'failed', hoursAgo: number) =>
      wh.app.db
        .updateTable('chunk')
        .set({
          status,
          rows_landed: 24,
          calls: 2,
          missing_hours: 1,
          finished_at: new Date(Date.now() - hoursAgo * HOUR),
        })
        .where('chunk_id', 'in', ids)
        .execute();
    await finished([old1!, old2!], 'done', 48);
    await finished([failed!], 'failed', 48);
    await finished([recent!], 'done', 0);

    expect(await foldDoneChunks(wh.app.db, 24 * HOUR, 1)).toBe(2);
    const left = await wh.app.db
      .selectFrom('chunk')
      .select('chunk_id')
      .where('run_id', '=', runId)
      .orderBy('chunk_id')
      .execute();
    expect(left.map((c) => c.chunk_id)).toEqual([failed, recent]);
    const run = await wh.app.db
      .selectFrom('run')
      .select(['folded_chunks', 'folded_rows', 'folded_calls', 'folded_missing_hours'])
      .where('run_id', '=', runId)
      .executeTakeFirstOrThrow();
    expect(run).toEqual({
      folded_chunks: 2,
      folded_rows: 48,
      folded_calls: 4,
      folded_missing_hours: 2,
    });
    // Folded already: nothing is counted twice.
    expect(await foldDoneChunks(wh.app.db, 24 * HOUR)).toBe(0);
    // Claiming a folded chunk finds nothing to do.
    expect(await claimChunk(wh.app.db, old1!, { recheckMs: HOUR, noDataRecheckMs: 0 })).toBe(
      undefined,
    );
  });
});
