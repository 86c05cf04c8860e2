import { beforeAll, describe, expect, it } from 'vitest';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { blockDataset } from '../../src/ledger/block-dataset.js';
import { claimChunk } from '../../src/ledger/claim-chunk.js';
import { closeRunIfDone } from '../../src/ledger/close-run-if-done.js';
import { recordChunkError } from '../../src/ledger/record-chunk-error.js';
import { landingOfBody } from '../fixtures/landing-of-body.js';
import { hoursBetween, weatherHistoryBody } from '../fixtures/payload-bodies.js';
import { planRunChunks } from '../harness/plan-run-chunks.js';
import { runEnd } from '../harness/run-end.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
const d = (day: string) => new Date(`${day}T00:00:00Z`);
const RECHECKS = { recheckMs: 86_400_000, noDataRecheckMs: 0 };

/** A run of Oslo's weather over `[from, to)` in 24-hour chunks. */
function dailyChunks(from: string, to: string) {
  return planRunChunks(wh.app.db, {
    dataset: 'weather',
    locationId: oslo,
    from: d(from),
    to: d(to),
    windowHours: 24,
  });
}

/** Claims the chunk and lands every hour of its window, as a worker would. */
async function land(chunkId: number): Promise<void> {
  const claim = await claimChunk(wh.app.db, chunkId, RECHECKS);
  if (!claim || 'settled' in claim) throw new Error(`chunk ${chunkId} not claimed`);
  const body = weatherHistoryBody(
    hoursBetween(claim.window.from.toISOString(), claim.window.to.toISOString()),
  );
  const landing = landingOfBody({ ...claim, locationId: oslo }, body, { expected: claim.window });
  await new FactWriter(wh.app.db, { archiveRaw: false }).land([landing]);
}

const runRow = (runId: number) => runEnd(wh.app.db, runId);

function notifications(runId: number) {
  return wh.app.db
    .selectFrom('notification')
    .select(['dedupe_key', 'event', 'details'])
    .where('dedupe_key', 'like', `run:${runId}:%`)
    .orderBy('notification_id')
    .execute();
}

const OPEN = { status: 'running', finished_at: null, error_code: null, error_message: null };

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
});

describe('closeRunIfDone', () => {
  it('leaves a run open while a chunk waits or is in flight, then closes it done, no notification', async () => {
    const { runId, chunkIds } = await dailyChunks('2020-06-01', '2020-06-03');
    expect(await closeRunIfDone(wh.app.db, runId)).toBeUndefined();
    expect(await runRow(runId)).toEqual(OPEN);

    await land(chunkIds[0]!);
    await claimChunk(wh.app.db, chunkIds[1]!, RECHECKS);
    expect(await closeRunIfDone(wh.app.db, runId)).toBeUndefined();
    expect(await runRow(runId)).toEqual(OPEN);

    await land(chunkIds[1]!);
    expect(await closeRunIfDone(wh.app.db, runId)).toBe('done');
    expect(await runRow(runId)).toEqual({ ...OPEN, status: 'done', finished_at: expect.any(Date) });
    expect(await notifications(runId)).toEqual([]);
    // The one caller that closed it is told; the next finds nothing to close.
    const closed = await runRow(runId);
    expect(await closeRunIfDone(wh.app.db, runId)).toBeUndefined();
    expect(await runRow(runId)).toEqual(closed);
  });

  it('leaves a run open while its gap is not tiled into chunks yet', async () => {
    const { runId, chunkIds } = await dailyChunks('2020-06-05', '2020-06-06');
    await land(chunkIds[0]!);
    await wh.app.db
      .updateTable('run_gap')
      .set({ next_from: d('2020-06-05') })
      .where('run_id', '=', runId)
      .execute();
    expect(await closeRunIfDone(wh.app.db, runId)).toBeUndefined();
    expect(await runRow(runId)).toEqual(OPEN);
    // Out of the feeder's way for the next tests.
    await wh.app.db
      .updateTable('run')
      .set({ status: 'cancelled' })
      .where('run_id', '=', runId)
      .execute();
  });

  it('fails a run with a failed chunk and records run-ended with counts by code and `envdata retry`', async () => {
    const { runId, chunkIds } = await dailyChunks('2020-06-10', '2020-06-12');
    await land(chunkIds[0]!);
    await claimChunk(wh.app.db, chunkIds[1]!, RECHECKS);
    await recordChunkError(wh.app.db, chunkIds[1]!, 'fail', {
      attempts: 5,
      code: 'SERVER_ERROR',
      message: 'HTTP 503',
    });
    expect(await closeRunIfDone(wh.app.db, runId)).toBe('failed');
    expect(await runRow(runId)).toEqual({
      ...OPEN,
      status: 'failed',
      finished_at: expect.any(Date),
    });
    expect(await notifications(runId)).toEqual([
      {
        dedupe_key: `run:${runId}:ended`,
        event: 'run-ended',
        details: {
          runId,
          kind: 'backfill',
          status: 'failed',
          failedChunks: 1,
          failedByCode: { SERVER_ERROR: 1 },
          quarantinedHours: 0,
          blockedDatasets: [],
          errorCode: null,
          action: `envdata retry ${runId}`,
        },
      },
    ]);
  });

  it('fails a run whose chunks are done over hours nobody accounted for: UNACCOUNTED_HOURS', async () => {
    const { runId, chunkIds } = await dailyChunks('2020-06-20', '2020-06-21');
    // Done without a landing: the hours are neither landed, nor a hole, nor in a failed chunk.
    await wh.app.db
      .updateTable('chunk')
      .set({ status: 'done', finished_at: new Date() })
      .where('chunk_id', '=', chunkIds[0]!)
      .execute();
    expect(await closeRunIfDone(wh.app.db, runId)).toBe('failed');
    const message =
      `hours of the plan are neither in the warehouse nor recorded as missing: location ${oslo} ` +
      'weather 2020-06-20 00:00–2020-06-21 00:00. Run the same backfill again to fetch them.';
    expect(await runRow(runId)).toEqual({
      status: 'failed',
      finished_at: expect.any(Date),
      error_code: 'UNACCOUNTED_HOURS',
      error_message: message,
    });
    expect(await notifications(runId)).toMatchObject([
      {
        event: 'run-ended',
        details: {
          status: 'failed',
          failedChunks: 0,
          errorCode: 'UNACCOUNTED_HOURS',
          action: `run the same backfill again (see \`envdata status ${runId}\`)`,
        },
      },
    ]);
  });

  it('closes a run failed when a dataset was blocked, its open chunks of that dataset left as they are', async () => {
    const { runId, chunkIds } = await dailyChunks('2020-06-25', '2020-06-27');
    await blockDataset(
      wh.app.db,
      runId,
      'weather',
      'HTTP 403: weather is not enabled for this key',
    );
    expect(await closeRunIfDone(wh.app.db, runId)).toBe('failed');
    expect(await runRow(runId)).toEqual({
      status: 'failed',
      finished_at: expect.any(Date),
      error_code: 'FORBIDDEN',
      error_message: 'HTTP 403: weather is not enabled for this key',
    });
    const chunks = await wh.app.db
      .selectFrom('chunk')
      .select(['chunk_id', 'status'])
      .where('run_id', '=', runId)
      .orderBy('chunk_id')
      .execute();
    expect(chunks).toEqual(chunkIds.map((id) => ({ chunk_id: id, status: 'queued' })));
    expect((await notifications(runId)).map((n) => n.event)).toEqual([
      'product-refused',
      'run-ended',
    ]);
  });

  it('does nothing to a run that is not running (paused), its chunks all done', async () => {
    const { runId, chunkIds } = await dailyChunks('2020-06-28', '2020-06-29');
    await land(chunkIds[0]!);
    await wh.app.db
      .updateTable('run')
      .set({ status: 'paused' })
      .where('run_id', '=', runId)
      .execute();
    expect(await closeRunIfDone(wh.app.db, runId)).toBeUndefined();
    expect(await runRow(runId)).toEqual({ ...OPEN, status: 'paused' });
  });
});
