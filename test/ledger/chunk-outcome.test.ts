import { beforeAll, describe, expect, it } from 'vitest';
import {
  decideChunkOutcome,
  recordChunkOutcome,
  type ChunkOutcomeStep,
} from '../../src/ledger/chunk-outcome.js';
import { claimChunk, type ClaimedChunk } from '../../src/ledger/claim-chunk.js';
import { RunCloser } from '../../src/ledger/run-closer.js';
import { planRunChunks } from '../harness/plan-run-chunks.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
let closer: RunCloser;
const at = (instant: string) => new Date(`${instant}Z`);
const RECHECKS = { recheckMs: 86_400_000, noDataRecheckMs: 0 };

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
  closer = new RunCloser(wh.app.db);
});

/** A run of one chunk of Oslo's weather over the day `day`, claimed by a worker (running). */
async function claimedDay(day: string): Promise<ClaimedChunk> {
  const from = at(`${day}T00:00:00`);
  const { chunkIds } = await planRunChunks(wh.app.db, {
    dataset: 'weather',
    locationId: oslo,
    from,
    to: new Date(from.getTime() + 86_400_000),
    windowHours: 24,
  });
  const claim = await claimChunk(wh.app.db, chunkIds[0]!, RECHECKS);
  if (!claim || 'settled' in claim) throw new Error(`chunk of ${day} not claimed`);
  return claim;
}

/** Decides and records `step` for `chunk` at `attempts`, as the ingest job's interpreter does. */
function record(step: ChunkOutcomeStep, chunk: ClaimedChunk, attempts = 1) {
  return recordChunkOutcome(wh.app.db, closer, decideChunkOutcome(step, chunk, attempts));
}

function chunkRow(chunkId: number) {
  return wh.app.db
    .selectFrom('chunk')
    .select(['status', 'attempts', 'calls', 'error_code', 'error_message'])
    .where('chunk_id', '=', chunkId)
    .executeTakeFirstOrThrow();
}

function runRow(runId: number) {
  return wh.app.db
    .selectFrom('run')
    .select(['status', 'waiting_reason', 'waiting_until', 'blocked_datasets', 'error_code'])
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
}

function events(runId: number) {
  return wh.app.db
    .selectFrom('notification')
    .select(['event'])
    .where('dedupe_key', 'like', `run:${runId}:%`)
    .execute();
}

describe('recordChunkOutcome: the ledger write of a step, one transaction', () => {
  it('release: the chunk waits again, no attempt used; a call answered counts once', async () => {
    const chunk = await claimedDay('2021-03-01');
    await record({ kind: 'release', callMade: true }, chunk);
    expect(await chunkRow(chunk.chunkId)).toMatchObject({ status: 'queued', calls: 1 });
    // Not running any more: a second release changes nothing.
    await record({ kind: 'release', callMade: true }, chunk);
    expect(await chunkRow(chunk.chunkId)).toMatchObject({ status: 'queued', calls: 1 });
    expect((await runRow(chunk.runId)).status).toBe('running');
  });

  it('wait: the chunk goes back and its run shows the quota and its reset', async () => {
    const chunk = await claimedDay('2021-03-02');
    const until = at('2021-03-03T00:00:00');
    await record(
      {
        kind: 'wait',
        callMade: true,
        reason: 'quota (day)',
        until,
        refusedByService: { counted: 90, limit: 100 },
      },
      chunk,
    );
    expect(await chunkRow(chunk.chunkId)).toMatchObject({ status: 'queued', calls: 1 });
    expect(await runRow(chunk.runId)).toMatchObject({
      status: 'running',
      waiting_reason: 'quota (day)',
      waiting_until: until,
    });
    const reached = await wh.app.db
      .selectFrom('notification')
      .select(['event'])
      .where('dedupe_key', '=', `quota:quota (day):${until.toISOString()}:reached`)
      .execute();
    expect(reached).toEqual([{ event: 'quota-reached' }]);
  });

  it('stop: the chunk goes back with its call counted, the run stops, key-refused recorded', async () => {
    const chunk = await claimedDay('2021-03-04');
    await record({ kind: 'stop', code: 'UNAUTHORIZED', message: 'the key was refused' }, chunk);
    expect(await chunkRow(chunk.chunkId)).toMatchObject({ status: 'queued', calls: 1 });
    expect(await runRow(chunk.runId)).toMatchObject({
      status: 'stopped',
      error_code: 'UNAUTHORIZED',
    });
    expect(await events(chunk.runId)).toEqual([{ event: 'key-refused' }]);
  });

  it('block: the chunk fails, the dataset is blocked, and the run closes failed at once', async () => {
    const chunk = await claimedDay('2021-03-05');
    await record({ kind: 'block', code: 'FORBIDDEN', message: 'weather refused (403)' }, chunk, 2);
    expect(await chunkRow(chunk.chunkId)).toEqual({
      status: 'failed',
      attempts: 2,
      calls: 1,
      error_code: 'FORBIDDEN',
      error_message: 'weather refused (403)',
    });
    expect(await runRow(chunk.runId)).toMatchObject({
      status: 'failed',
      blocked_datasets: ['weather'],
      error_code: 'FORBIDDEN',
    });
    expect((await events(chunk.runId)).map((e) => e.event).sort()).toEqual([
      'product-refused',
      'run-ended',
    ]);
  });

  it('split: the halves are queued in the run and returned, the chunk marked split', async () => {
    const chunk = await claimedDay('2021-03-06');
    const halves = await record(
      { kind: 'split', code: 'RANGE_TOO_LONG', message: 'too long' },
      chunk,
    );
    expect(halves).toHaveLength(2);
    expect(await chunkRow(chunk.chunkId)).toMatchObject({
      status: 'split',
      calls: 1,
      error_code: 'RANGE_TOO_LONG',
      error_message: 'split into 2 windows of at most 12 h',
    });
    for (const id of halves) expect((await chunkRow(id)).status).toBe('queued');
  });

  it('retry, then fail: the error on record each time; the failed chunk closes its run', async () => {
    const chunk = await claimedDay('2021-03-07');
    const step = { code: 'SERVER_ERROR', message: 'the service failed (503)', landed: false };
    await record({ kind: 'retry', ...step }, chunk, 1);
    expect(await chunkRow(chunk.chunkId)).toMatchObject({
      status: 'queued',
      attempts: 1,
      calls: 1,
      error_code: 'SERVER_ERROR',
    });
    await wh.app.db
      .updateTable('chunk')
      .set({ status: 'running' })
      .where('chunk_id', '=', chunk.chunkId)
      .execute();
    await record({ kind: 'fail', ...step }, chunk, 2);
    expect(await chunkRow(chunk.chunkId)).toMatchObject({
      status: 'failed',
      attempts: 2,
      calls: 2,
    });
    expect((await runRow(chunk.runId)).status).toBe('failed');
  });

  it('a step its landing recorded (a 206) writes no chunk row again', async () => {
    const chunk = await claimedDay('2021-03-08');
    const before = await chunkRow(chunk.chunkId);
    await record({ kind: 'retry', code: 'PARTIAL', message: 'trimmed', landed: true }, chunk);
    expect(await chunkRow(chunk.chunkId)).toEqual(before);
  });
});
