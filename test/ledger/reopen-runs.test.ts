import { beforeAll, describe, expect, it } from 'vitest';
import { claimChunk } from '../../src/ledger/claim-chunk.js';
import { recordChunkError } from '../../src/ledger/record-chunk-error.js';
import {
  reopenRuns,
  requeueFailedChunks,
  runExists,
  runningRunIds,
} from '../../src/ledger/reopen-runs.js';
import { stopRun } from '../../src/ledger/stop-run.js';
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

/** A running run of one claimed chunk of Oslo's weather on `day`. */
async function claimedRun(day: string): Promise<{ runId: number; chunkId: number }> {
  const { runId, chunkIds } = await planRunChunks(wh.app.db, {
    dataset: 'weather',
    locationId: oslo,
    from: at(`${day}T00:00:00`),
    to: at(`${day}T12:00:00`),
    windowHours: 24,
  });
  const claim = await claimChunk(wh.app.db, chunkIds[0]!, RECHECKS);
  if (!claim || 'settled' in claim) throw new Error(`chunk of ${day} not claimed`);
  return { runId, chunkId: claim.chunkId };
}

function runRow(runId: number) {
  return wh.app.db
    .selectFrom('run')
    .select(['status', 'error_code', 'error_message', 'finished_at', 'blocked_datasets'])
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
}

describe('reopenRuns', () => {
  it('runs a stopped run again, its error cleared; a done run stays done', async () => {
    const stopped = await claimedRun('2022-07-01');
    const done = await claimedRun('2022-07-02');
    await stopRun(wh.app.db, stopped.runId, 'UNAUTHORIZED', 'refused');
    await wh.app.db
      .updateTable('run')
      .set({ status: 'done', finished_at: new Date() })
      .where('run_id', '=', done.runId)
      .execute();

    expect(await reopenRuns(wh.app.db, stopped.runId)).toEqual([stopped.runId]);
    expect(await runRow(stopped.runId)).toMatchObject({
      status: 'running',
      error_code: null,
      error_message: null,
      finished_at: null,
    });
    expect(await reopenRuns(wh.app.db, done.runId)).toEqual([]);
    expect((await runRow(done.runId)).status).toBe('done');
    expect(await runningRunIds(wh.app.db)).toContain(stopped.runId);
    expect(await runExists(wh.app.db, done.runId)).toBe(true);
    expect(await runExists(wh.app.db, 999_999)).toBe(false);
  });
});

describe('requeueFailedChunks', () => {
  it('puts the failed chunks back with fresh attempts and runs their run again', async () => {
    const { runId, chunkId } = await claimedRun('2022-07-03');
    await recordChunkError(wh.app.db, chunkId, 'fail', {
      attempts: 5,
      code: 'SERVER_ERROR',
      message: 'the service failed (503)',
    });
    await wh.app.db
      .updateTable('run')
      .set({ status: 'failed', blocked_datasets: ['weather'], error_code: 'FORBIDDEN' })
      .where('run_id', '=', runId)
      .execute();

    expect(await requeueFailedChunks(wh.app.db, runId)).toEqual([chunkId]);
    const chunk = await wh.app.db
      .selectFrom('chunk')
      .select(['status', 'attempts', 'calls', 'error_code', 'finished_at'])
      .where('chunk_id', '=', chunkId)
      .executeTakeFirstOrThrow();
    // The calls made stay counted.
    expect(chunk).toEqual({
      status: 'queued',
      attempts: 0,
      calls: 1,
      error_code: null,
      finished_at: null,
    });
    expect(await runRow(runId)).toMatchObject({
      status: 'running',
      blocked_datasets: [],
      error_code: null,
    });
    // Nothing failed any more: nothing changes.
    expect(await requeueFailedChunks(wh.app.db, runId)).toEqual([]);
  });
});
