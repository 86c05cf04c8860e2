import { beforeAll, describe, expect, it } from 'vitest';
import { claimChunk } from '../../src/ledger/claim-chunk.js';
import { pauseRun } from '../../src/ledger/pause-run.js';
import { planRunChunks } from '../harness/plan-run-chunks.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
const d = (day: string) => new Date(`${day}T00:00:00Z`);
const RECHECKS = { recheckMs: 86_400_000, noDataRecheckMs: 0 };

function runRow(runId: number) {
  return wh.app.db
    .selectFrom('run')
    .select(['status', 'finished_at', 'error_code', 'error_message', 'blocked_datasets'])
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
}

function chunkRows(runId: number) {
  return wh.app.db
    .selectFrom('chunk')
    .select(['chunk_id', 'status', 'started_at', 'finished_at'])
    .where('run_id', '=', runId)
    .orderBy('chunk_id')
    .execute();
}

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
});

describe('pauseRun', () => {
  it('pauses a running run and nothing else: its chunks, queued or in flight, stay as they were', async () => {
    const { runId, chunkIds } = await planRunChunks(wh.app.db, {
      dataset: 'weather',
      locationId: oslo,
      from: d('2020-03-03'),
      to: d('2020-03-07'),
      windowHours: 48,
    });
    await claimChunk(wh.app.db, chunkIds[0]!, RECHECKS);
    const chunksBefore = await chunkRows(runId);
    expect(chunksBefore.map((c) => c.status)).toEqual(['running', 'queued']);

    expect(await pauseRun(wh.app.db, runId)).toBe(true);
    expect(await runRow(runId)).toEqual({
      status: 'paused',
      finished_at: null,
      error_code: null,
      error_message: null,
      blocked_datasets: [],
    });
    expect(await chunkRows(runId)).toEqual(chunksBefore);
    // No worker starts its queued chunk now.
    expect(await claimChunk(wh.app.db, chunkIds[1]!, RECHECKS)).toBeUndefined();
    expect(await chunkRows(runId)).toEqual(chunksBefore);
  });

  it('does nothing to a run already paused, or finished', async () => {
    const { runId } = await planRunChunks(wh.app.db, {
      dataset: 'weather',
      locationId: oslo,
      from: d('2020-03-10'),
      to: d('2020-03-12'),
      windowHours: 48,
    });
    expect(await pauseRun(wh.app.db, runId)).toBe(true);
    expect(await pauseRun(wh.app.db, runId)).toBe(false);
    expect((await runRow(runId)).status).toBe('paused');

    const finishedAt = new Date('2020-03-13T00:00:00Z');
    await wh.app.db
      .updateTable('run')
      .set({ status: 'done', finished_at: finishedAt })
      .where('run_id', '=', runId)
      .execute();
    expect(await pauseRun(wh.app.db, runId)).toBe(false);
    expect(await runRow(runId)).toEqual({
      status: 'done',
      finished_at: finishedAt,
      error_code: null,
      error_message: null,
      blocked_datasets: [],
    });
  });
});
