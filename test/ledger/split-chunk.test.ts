import { beforeAll, describe, expect, it } from 'vitest';
import { claimChunk, type ClaimedChunk } from '../../src/ledger/claim-chunk.js';
import { splitChunk } from '../../src/ledger/split-chunk.js';
import { planRunChunks } from '../harness/plan-run-chunks.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
const at = (instant: string) => new Date(`${instant}Z`);
const RECHECKS = { recheckMs: 86_400_000, noDataRecheckMs: 0 };

/** A run of one chunk over `[from, to)`, claimed by a worker. */
async function claimed(from: string, to: string): Promise<ClaimedChunk> {
  const window = { from: at(from), to: at(to) };
  const hours = (window.to.getTime() - window.from.getTime()) / 3_600_000;
  const { chunkIds } = await planRunChunks(wh.app.db, {
    dataset: 'weather',
    locationId: oslo,
    ...window,
    // Windows tile a grid from the epoch: one this long holds [from, to) whole.
    windowHours: Math.ceil(window.to.getTime() / 3_600_000),
  });
  expect(chunkIds).toHaveLength(1);
  const claim = await claimChunk(wh.app.db, chunkIds[0]!, RECHECKS);
  if (!claim || 'settled' in claim) throw new Error(`chunk of ${hours} h not claimed`);
  return claim;
}

function chunkRows(runId: number) {
  return wh.app.db
    .selectFrom('chunk')
    .select([
      'chunk_id',
      'window_from',
      'window_to',
      'status',
      'attempts',
      'calls',
      'error_code',
      'error_message',
      'parent_chunk_id',
      'finished_at',
    ])
    .where('run_id', '=', runId)
    .orderBy('chunk_id')
    .execute();
}

const child = (chunkId: number, parent: number, from: string, to: string) => ({
  chunk_id: chunkId,
  window_from: at(from),
  window_to: at(to),
  status: 'queued',
  attempts: 0,
  calls: 0,
  error_code: null,
  error_message: null,
  parent_chunk_id: parent,
  finished_at: null,
});

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
});

describe('splitChunk', () => {
  it('marks the chunk split (one call, the code, how it was cut) and queues its two halves', async () => {
    const chunk = await claimed('2020-05-02T00:00:00', '2020-05-04T00:00:00');
    const ids = await splitChunk(wh.app.db, chunk, 1);
    expect(ids).toHaveLength(2);
    expect(await chunkRows(chunk.runId)).toEqual([
      {
        chunk_id: chunk.chunkId,
        window_from: at('2020-05-02T00:00:00'),
        window_to: at('2020-05-04T00:00:00'),
        status: 'split',
        attempts: 1,
        calls: 1,
        error_code: 'RANGE_TOO_LONG',
        error_message: 'split into 2 windows of at most 24 h',
        parent_chunk_id: null,
        finished_at: expect.any(Date),
      },
      child(ids[0]!, chunk.chunkId, '2020-05-02T00:00:00', '2020-05-03T00:00:00'),
      child(ids[1]!, chunk.chunkId, '2020-05-03T00:00:00', '2020-05-04T00:00:00'),
    ]);
  });

  it('gives the extra hour of an odd window to the second half, and cuts pieces of `pieceHours` when told', async () => {
    const odd = await claimed('2020-05-10T00:00:00', '2020-05-10T05:00:00');
    const halves = await splitChunk(wh.app.db, odd, 2, 'RESPONSE_TOO_LARGE');
    const oddRows = await chunkRows(odd.runId);
    expect(oddRows[0]).toMatchObject({
      status: 'split',
      attempts: 2,
      error_code: 'RESPONSE_TOO_LARGE',
      error_message: 'split into 2 windows of at most 3 h',
    });
    expect(oddRows.slice(1)).toEqual([
      child(halves[0]!, odd.chunkId, '2020-05-10T00:00:00', '2020-05-10T02:00:00'),
      child(halves[1]!, odd.chunkId, '2020-05-10T02:00:00', '2020-05-10T05:00:00'),
    ]);

    const probe = await claimed('2020-05-12T00:00:00', '2020-05-14T00:00:00');
    const pieces = await splitChunk(wh.app.db, probe, 1, 'RANGE_TOO_LONG', 18);
    const probeRows = await chunkRows(probe.runId);
    expect(probeRows[0]).toMatchObject({
      status: 'split',
      error_message: 'split into 3 windows of at most 18 h',
    });
    expect(probeRows.slice(1)).toEqual([
      child(pieces[0]!, probe.chunkId, '2020-05-12T00:00:00', '2020-05-12T18:00:00'),
      child(pieces[1]!, probe.chunkId, '2020-05-12T18:00:00', '2020-05-13T12:00:00'),
      child(pieces[2]!, probe.chunkId, '2020-05-13T12:00:00', '2020-05-14T00:00:00'),
    ]);
  });

  it('does nothing to a one-hour chunk (the caller fails it)', async () => {
    const chunk = await claimed('2020-05-20T00:00:00', '2020-05-20T01:00:00');
    const before = await chunkRows(chunk.runId);
    expect(await splitChunk(wh.app.db, chunk, 1)).toEqual([]);
    expect(await chunkRows(chunk.runId)).toEqual(before);
    expect(before).toMatchObject([{ status: 'running', calls: 0, error_code: null }]);
  });

  it('returns no id for a half that exists already and is done, but adopts it', async () => {
    const chunk = await claimed('2020-05-22T00:00:00', '2020-05-24T00:00:00');
    const first = await splitChunk(wh.app.db, chunk, 1);
    await wh.app.db
      .updateTable('chunk')
      .set({ status: 'done', finished_at: new Date() })
      .where('chunk_id', '=', first[0]!)
      .execute();
    // A second worker's split of the same chunk (a redelivered job): only the open half is new work.
    expect(await splitChunk(wh.app.db, chunk, 1)).toEqual([first[1]]);
    const rows = await chunkRows(chunk.runId);
    expect(rows.map((r) => [r.chunk_id, r.status, r.parent_chunk_id])).toEqual([
      [chunk.chunkId, 'split', null],
      [first[0], 'done', chunk.chunkId],
      [first[1], 'queued', chunk.chunkId],
    ]);
    expect(rows[0]!.calls).toBe(2);
  });
});
