import { beforeAll, describe, expect, it } from 'vitest';
import { claimChunk } from '../../src/ledger/claim-chunk.js';
import { recordChunkError } from '../../src/ledger/record-chunk-error.js';
import { planRunChunks } from '../harness/plan-run-chunks.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
const at = (instant: string) => new Date(`${instant}Z`);
const RECHECKS = { recheckMs: 86_400_000, noDataRecheckMs: 0 };

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
});

/** A claimed (running) chunk of Oslo's weather on `day`, a run of its own. */
async function claimed(day: string): Promise<number> {
  const { chunkIds } = await planRunChunks(wh.app.db, {
    dataset: 'weather',
    locationId: oslo,
    from: at(`${day}T00:00:00`),
    to: at(`${day}T12:00:00`),
    windowHours: 24,
  });
  const claim = await claimChunk(wh.app.db, chunkIds[0]!, RECHECKS);
  if (!claim || 'settled' in claim) throw new Error(`chunk of ${day} not claimed`);
  return claim.chunkId;
}

function chunkRow(chunkId: number) {
  return wh.app.db
    .selectFrom('chunk')
    .select(['status', 'attempts', 'calls', 'error_code', 'error_message', 'finished_at'])
    .where('chunk_id', '=', chunkId)
    .executeTakeFirstOrThrow();
}

const SERVER = { code: 'SERVER_ERROR', message: 'the service failed (503)' };

describe('recordChunkError', () => {
  it('retry: the chunk waits again with its error on record and the call counted', async () => {
    const chunkId = await claimed('2022-06-01');
    await recordChunkError(wh.app.db, chunkId, 'retry', { attempts: 1, ...SERVER });
    expect(await chunkRow(chunkId)).toEqual({
      status: 'queued',
      attempts: 1,
      calls: 1,
      error_code: 'SERVER_ERROR',
      error_message: 'the service failed (503)',
      finished_at: null,
    });
  });

  it('fail: the chunk ends failed, finished, every call counted', async () => {
    const chunkId = await claimed('2022-06-02');
    await recordChunkError(wh.app.db, chunkId, 'retry', { attempts: 1, ...SERVER });
    await recordChunkError(wh.app.db, chunkId, 'fail', { attempts: 2, ...SERVER });
    expect(await chunkRow(chunkId)).toMatchObject({
      status: 'failed',
      attempts: 2,
      calls: 2,
      error_code: 'SERVER_ERROR',
      finished_at: expect.any(Date),
    });
  });

  it('a done or split chunk is never touched', async () => {
    for (const [day, status] of [
      ['2022-06-03', 'done'],
      ['2022-06-04', 'split'],
    ] as const) {
      const chunkId = await claimed(day);
      await wh.app.db
        .updateTable('chunk')
        .set({ status })
        .where('chunk_id', '=', chunkId)
        .execute();
      const before = await chunkRow(chunkId);
      await recordChunkError(wh.app.db, chunkId, 'fail', { attempts: 3, ...SERVER });
      expect(await chunkRow(chunkId)).toEqual(before);
    }
  });
});
