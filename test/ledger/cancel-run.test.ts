import { beforeAll, describe, expect, it } from 'vitest';
import { cancelRun } from '../../src/ledger/cancel-run.js';
import { claimChunk } from '../../src/ledger/claim-chunk.js';
import { pauseRun } from '../../src/ledger/pause-run.js';
import { recordChunkError } from '../../src/ledger/record-chunk-error.js';
import { planRunChunks } from '../harness/plan-run-chunks.js';
import { runEnd } from '../harness/run-end.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
const d = (day: string) => new Date(`${day}T00:00:00Z`);
const RECHECKS = { recheckMs: 86_400_000, noDataRecheckMs: 0 };
const CANCELLED = {
  status: 'cancelled',
  finished_at: expect.any(Date),
  error_code: 'CANCELLED',
  error_message: 'cancelled by the operator (`envdata cancel`); what landed stays',
};

const runRow = (runId: number) => runEnd(wh.app.db, runId);

function chunkRows(runId: number) {
  return wh.app.db
    .selectFrom('chunk')
    .select(['chunk_id', 'status', 'error_code', 'finished_at'])
    .where('run_id', '=', runId)
    .orderBy('chunk_id')
    .execute();
}

/** A run of four 24-hour chunks at Oslo over four days from `from`. */
function fourChunks(from: string) {
  const start = d(from);
  return planRunChunks(wh.app.db, {
    dataset: 'weather',
    locationId: oslo,
    from: start,
    to: new Date(start.getTime() + 4 * 86_400_000),
    windowHours: 24,
  });
}

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
});

describe('cancelRun', () => {
  it('ends the run cancelled, drops the chunks not fetched and keeps those in flight or finished', async () => {
    const { runId, chunkIds } = await fourChunks('2020-04-01');
    const [running, failed, queued1, queued2] = chunkIds as [number, number, number, number];
    await claimChunk(wh.app.db, running, RECHECKS);
    await claimChunk(wh.app.db, failed, RECHECKS);
    await recordChunkError(wh.app.db, failed, 'fail', {
      attempts: 1,
      code: 'SERVER_ERROR',
      message: 'HTTP 500',
    });
    const kept = (await chunkRows(runId)).filter((c) => c.chunk_id <= failed);

    expect(await cancelRun(wh.app.db, runId)).toEqual({
      dropped: [queued1, queued2],
      inFlight: 1,
    });
    expect(await runRow(runId)).toEqual(CANCELLED);
    expect(await chunkRows(runId)).toEqual(kept);
    expect(kept).toEqual([
      { chunk_id: running, status: 'running', error_code: null, finished_at: null },
      {
        chunk_id: failed,
        status: 'failed',
        error_code: 'SERVER_ERROR',
        finished_at: expect.any(Date),
      },
    ]);
  });

  it('cancels a paused run too', async () => {
    const { runId, chunkIds } = await fourChunks('2020-04-10');
    await pauseRun(wh.app.db, runId);
    expect(await cancelRun(wh.app.db, runId)).toEqual({ dropped: chunkIds, inFlight: 0 });
    expect(await runRow(runId)).toEqual(CANCELLED);
    expect(await chunkRows(runId)).toEqual([]);
  });

  it('does nothing to a run that has finished, cancelled or not', async () => {
    const { runId, chunkIds } = await fourChunks('2020-04-20');
    const finishedAt = new Date('2020-04-25T00:00:00Z');
    await wh.app.db
      .updateTable('run')
      .set({ status: 'done', finished_at: finishedAt })
      .where('run_id', '=', runId)
      .execute();
    expect(await cancelRun(wh.app.db, runId)).toBeUndefined();
    expect(await runRow(runId)).toEqual({
      status: 'done',
      finished_at: finishedAt,
      error_code: null,
      error_message: null,
    });
    expect((await chunkRows(runId)).map((c) => c.chunk_id)).toEqual(chunkIds);

    const again = await fourChunks('2020-05-01');
    expect(await cancelRun(wh.app.db, again.runId)).toBeDefined();
    const cancelled = await runRow(again.runId);
    expect(await cancelRun(wh.app.db, again.runId)).toBeUndefined();
    expect(await runRow(again.runId)).toEqual(cancelled);
  });
});
