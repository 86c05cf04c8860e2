import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { claimChunk } from '../../src/ledger/claim-chunk.js';
import { createRunWithGaps } from '../../src/ledger/create-run-with-gaps.js';
import { recordChunkError } from '../../src/ledger/record-chunk-error.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { planRunChunks } from '../harness/plan-run-chunks.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
const d = (day: string) => new Date(`${day}T00:00:00Z`);
const DAY = 86_400_000;
const RECHECKS = { recheckMs: DAY, noDataRecheckMs: 0 };

/** Lands Oslo's weather over the days `[from, to)` (`wh.landWeather`). */
const land = (from: string, to: string, options: { sentTo?: Date; noData?: boolean } = {}) =>
  wh.landWeather(oslo, { from: d(from), to: d(to) }, options);

/**
 * A backfill run over `[from, to)` whose one chunk was planned (queued) before anything of its
 * window landed: the chunk is written as the feeder wrote it then, whatever the coverage says now.
 */
async function plannedChunk(
  from: string,
  to: string,
  options: { refetch?: boolean } = {},
): Promise<{ runId: number; chunkId: number }> {
  const gap = { dataset: 'weather' as const, locationId: oslo, from: d(from), to: d(to) };
  const runId = await createRunWithGaps(wh.app.db, {
    kind: 'backfill',
    priority: 0,
    windowHours: 48,
    gaps: [gap],
    request: { test: true },
    ...(options.refetch && { refetch: true }),
  });
  await wh.app.db
    .updateTable('run_gap')
    .set({ next_from: d(to) })
    .where('run_id', '=', runId)
    .execute();
  const chunk = await wh.app.db
    .insertInto('chunk')
    .values({
      run_id: runId,
      dataset: 'weather',
      location_id: oslo,
      window_from: d(from),
      window_to: d(to),
      status: 'queued',
    })
    .returning('chunk_id')
    .executeTakeFirstOrThrow();
  return { runId, chunkId: chunk.chunk_id };
}

async function chunkRow(chunkId: number) {
  return wh.app.db
    .selectFrom('chunk')
    .select(['status', 'outcome', 'calls', 'rows_landed', 'finished_at'])
    .where('chunk_id', '=', chunkId)
    .executeTakeFirstOrThrow();
}

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
  await land('2020-01-02', '2020-01-04');
  // "Data not available!": settled for good with ENVDATA_NO_DATA_RECHECK=0.
  await land('2020-01-06', '2020-01-08', { noData: true });
  // An answer that stops at noon: the afternoon is a hole missing upstream, checked now.
  await land('2020-01-10', '2020-01-11', { sentTo: new Date('2020-01-10T12:00:00Z') });
});

describe('claimChunk: a chunk settled since it was planned', () => {
  it('is done at claim time without a call: outcome settled, 0 calls, 0 rows, counted done by its run', async () => {
    const { runId, chunkId } = await plannedChunk('2020-01-02', '2020-01-04');
    const claim = await claimChunk(wh.app.db, chunkId, RECHECKS);
    expect(claim).toEqual({ settled: true, chunkId, runId, dataset: 'weather' });
    expect(await chunkRow(chunkId)).toMatchObject({
      status: 'done',
      outcome: 'settled',
      calls: 0,
      rows_landed: 0,
      finished_at: expect.any(Date),
    });
    expect(await runProgress(wh.app.db, runId)).toMatchObject({
      done: 1,
      total: 1,
      inFlight: 0,
      calls: 0,
      rows: 0,
    });
    // A second dispatch of the same job finds nothing to do.
    expect(await claimChunk(wh.app.db, chunkId, RECHECKS)).toBeUndefined();
  });

  it('is claimed for a call when any hour of its window is still to fetch', async () => {
    const { chunkId } = await plannedChunk('2020-01-03', '2020-01-05');
    const claim = await claimChunk(wh.app.db, chunkId, RECHECKS);
    expect(claim).toMatchObject({
      chunkId,
      window: { from: d('2020-01-03'), to: d('2020-01-05') },
    });
    expect(claim && 'settled' in claim).toBe(false);
    expect(await chunkRow(chunkId)).toMatchObject({ status: 'running', outcome: null });
  });

  it('reads holes with the planner\'s rule: "no data" and holes within their recheck interval settle', async () => {
    const noData = await plannedChunk('2020-01-06', '2020-01-08');
    expect(await claimChunk(wh.app.db, noData.chunkId, RECHECKS)).toMatchObject({ settled: true });
    // Landed in the morning, missing upstream in the afternoon, checked a moment ago.
    const missing = await plannedChunk('2020-01-10', '2020-01-11');
    expect(await claimChunk(wh.app.db, missing.chunkId, RECHECKS)).toMatchObject({ settled: true });
  });

  it('asks again for holes past their recheck interval, and "no data" past ENVDATA_NO_DATA_RECHECK', async () => {
    await sql`update envdata.coverage_hole set checked_at = now() - interval '2 days'
      where location_id = ${oslo}`.execute(wh.app.db);
    const missing = await plannedChunk('2020-01-10', '2020-01-11');
    const claim = await claimChunk(wh.app.db, missing.chunkId, RECHECKS);
    expect(claim).toMatchObject({ chunkId: missing.chunkId, refetches: 0 });
    expect(claim && 'settled' in claim).toBe(false);
    const noData = await plannedChunk('2020-01-06', '2020-01-08');
    const again = await claimChunk(wh.app.db, noData.chunkId, {
      recheckMs: DAY,
      noDataRecheckMs: DAY,
    });
    expect(again && 'settled' in again).toBe(false);
  });

  it('never settles a chunk of a run that re-reads what is covered (a lookback, --recheck-no-data)', async () => {
    const { chunkId } = await plannedChunk('2020-01-02', '2020-01-04', { refetch: true });
    const claim = await claimChunk(wh.app.db, chunkId, RECHECKS);
    expect(claim && 'settled' in claim).toBe(false);
    expect(await chunkRow(chunkId)).toMatchObject({ status: 'running' });
  });

  it('leaves the chunk of a paused run alone, settled or not', async () => {
    const { runId, chunkId } = await plannedChunk('2020-01-02', '2020-01-04');
    await wh.app.db
      .updateTable('run')
      .set({ status: 'paused' })
      .where('run_id', '=', runId)
      .execute();
    expect(await claimChunk(wh.app.db, chunkId, RECHECKS)).toBeUndefined();
    expect(await chunkRow(chunkId)).toMatchObject({ status: 'queued', outcome: null });
  });
});

describe('claimChunk: the row a claim writes, and the claims that write none', () => {
  /** Every column a claim may write. */
  function claimedRow(chunkId: number) {
    return wh.app.db
      .selectFrom('chunk')
      .select([
        'status',
        'outcome',
        'attempts',
        'calls',
        'error_code',
        'error_message',
        'started_at',
        'finished_at',
      ])
      .where('chunk_id', '=', chunkId)
      .executeTakeFirstOrThrow();
  }

  /** A run of three 24-hour chunks of Oslo's weather in February, where nothing landed. */
  const threeChunks = (from: string) =>
    planRunChunks(wh.app.db, {
      dataset: 'weather',
      locationId: oslo,
      from: d(from),
      to: new Date(d(from).getTime() + 3 * DAY),
      windowHours: 24,
    });

  it('marks the chunk running with its start time, and a redelivered claim changes nothing', async () => {
    const { chunkIds } = await threeChunks('2020-02-01');
    const chunkId = chunkIds[0]!;
    const claim = await claimChunk(wh.app.db, chunkId, RECHECKS);
    expect(claim).toMatchObject({ chunkId, attempts: 0, refetches: 0, windowAuto: false });
    const row = await claimedRow(chunkId);
    expect(row).toEqual({
      status: 'running',
      outcome: null,
      attempts: 0,
      calls: 0,
      error_code: null,
      error_message: null,
      started_at: expect.any(Date),
      finished_at: null,
    });
    // The job again (its worker died): the chunk is claimed again, its start time kept.
    expect(await claimChunk(wh.app.db, chunkId, RECHECKS)).toEqual(claim);
    expect(await claimedRow(chunkId)).toEqual(row);
  });

  it('keeps the error of a chunk waiting for a retry until the retry lands', async () => {
    const { chunkIds } = await threeChunks('2020-02-05');
    const chunkId = chunkIds[0]!;
    await claimChunk(wh.app.db, chunkId, RECHECKS);
    await recordChunkError(wh.app.db, chunkId, 'retry', {
      attempts: 1,
      code: 'SERVER_ERROR',
      message: 'HTTP 502',
    });
    expect(await claimChunk(wh.app.db, chunkId, RECHECKS)).toMatchObject({ attempts: 1 });
    expect(await claimedRow(chunkId)).toMatchObject({
      status: 'running',
      attempts: 1,
      calls: 1,
      error_code: 'SERVER_ERROR',
      error_message: 'HTTP 502',
    });
  });

  it('writes nothing to a chunk failed, split or done, nor to one of a blocked dataset', async () => {
    const { chunkIds } = await threeChunks('2020-02-10');
    const [failed, split, done] = chunkIds as [number, number, number];
    await recordChunkError(wh.app.db, failed, 'fail', {
      attempts: 3,
      code: 'SERVER_ERROR',
      message: 'HTTP 500',
    });
    await wh.app.db
      .updateTable('chunk')
      .set({ status: 'split', finished_at: new Date() })
      .where('chunk_id', '=', split)
      .execute();
    await wh.app.db
      .updateTable('chunk')
      .set({ status: 'done', outcome: 'rows', finished_at: new Date() })
      .where('chunk_id', '=', done)
      .execute();
    for (const chunkId of chunkIds) {
      const before = await claimedRow(chunkId);
      expect(await claimChunk(wh.app.db, chunkId, RECHECKS)).toBeUndefined();
      expect(await claimedRow(chunkId)).toEqual(before);
    }

    const blocked = await threeChunks('2020-02-15');
    await wh.app.db
      .updateTable('run')
      .set({ blocked_datasets: ['weather'] })
      .where('run_id', '=', blocked.runId)
      .execute();
    const before = await claimedRow(blocked.chunkIds[0]!);
    expect(await claimChunk(wh.app.db, blocked.chunkIds[0]!, RECHECKS)).toBeUndefined();
    expect(await claimedRow(blocked.chunkIds[0]!)).toEqual(before);
    expect(before).toMatchObject({ status: 'queued', started_at: null });
  });
});
