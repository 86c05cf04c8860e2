import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRunWithGaps } from '../../src/ledger/create-run-with-gaps.js';
import { materializeChunks } from '../../src/ledger/materialize-chunks.js';
import { pauseRun } from '../../src/ledger/pause-run.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
const d = (day: string) => new Date(`${day}T00:00:00Z`);
const OPTIONS = { recheckMs: 86_400_000 };

/** A running backfill of Oslo's weather over `[from, to)` in 48-hour windows, not fed yet. */
function newRun(from: string, to: string, extra: { priority?: number } = {}) {
  return createRunWithGaps(wh.app.db, {
    kind: 'backfill',
    priority: extra.priority ?? 0,
    windowHours: 48,
    gaps: [{ dataset: 'weather', locationId: oslo, from: d(from), to: d(to) }],
    request: { test: true },
  });
}

function chunkRows(runId: number) {
  return wh.app.db
    .selectFrom('chunk')
    .select([
      'chunk_id',
      'dataset',
      'location_id',
      'window_from',
      'window_to',
      'status',
      'outcome',
      'attempts',
      'calls',
      'parent_chunk_id',
      'started_at',
      'finished_at',
    ])
    .where('run_id', '=', runId)
    .orderBy('window_from')
    .execute();
}

async function cursor(runId: number): Promise<Date> {
  const gap = await wh.app.db
    .selectFrom('run_gap')
    .select('next_from')
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  return gap.next_from;
}

const queued = (chunkId: number, from: string, to: string) => ({
  chunk_id: chunkId,
  dataset: 'weather',
  location_id: oslo,
  window_from: d(from),
  window_to: d(to),
  status: 'queued',
  outcome: null,
  attempts: 0,
  calls: 0,
  parent_chunk_id: null,
  started_at: null,
  finished_at: null,
});

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
});

describe('materializeChunks', () => {
  it('writes up to `limit` queued chunks on the window grid and moves the gap cursor past them', async () => {
    // 2020-01-01 is on the 48-hour grid from the epoch: three windows, the last one cut short.
    const runId = await newRun('2020-01-01', '2020-01-06');
    const first = await materializeChunks(wh.app.db, 2, OPTIONS);
    expect(first.map((c) => c.urgent)).toEqual([false, false]);
    expect(await chunkRows(runId)).toEqual([
      queued(first[0]!.chunkId, '2020-01-01', '2020-01-03'),
      queued(first[1]!.chunkId, '2020-01-03', '2020-01-05'),
    ]);
    expect(await cursor(runId)).toEqual(d('2020-01-05'));

    const rest = await materializeChunks(wh.app.db, 2, OPTIONS);
    expect(rest).toHaveLength(1);
    expect((await chunkRows(runId)).at(-1)).toEqual(
      queued(rest[0]!.chunkId, '2020-01-05', '2020-01-06'),
    );
    expect(await cursor(runId)).toEqual(d('2020-01-06'));
    // Fed out: nothing more, nothing written.
    expect(await materializeChunks(wh.app.db, 2, OPTIONS)).toEqual([]);
    expect(await chunkRows(runId)).toHaveLength(3);
  });

  it('feeds the urgent run first, its chunks marked urgent', async () => {
    const slow = await newRun('2020-02-02', '2020-02-04');
    const urgent = await newRun('2020-02-06', '2020-02-08', { priority: 10 });
    const [chunk] = await materializeChunks(wh.app.db, 1, OPTIONS);
    expect(chunk?.urgent).toBe(true);
    expect(await chunkRows(urgent)).toEqual([queued(chunk!.chunkId, '2020-02-06', '2020-02-08')]);
    expect(await chunkRows(slow)).toEqual([]);
    expect(await materializeChunks(wh.app.db, 5, OPTIONS)).toHaveLength(1);
    expect(await chunkRows(slow)).toHaveLength(1);
  });

  it('skips windows whose hours are settled in the coverage, cursor moved all the same', async () => {
    const runId = await newRun('2020-03-03', '2020-03-07');
    await sql`insert into envdata.coverage (location_id, dataset, landed)
      values (${oslo}, 'weather', tstzmultirange(tstzrange(${d('2020-03-03')}, ${d('2020-03-05')})))`.execute(
      wh.app.db,
    );
    const fed = await materializeChunks(wh.app.db, 5, OPTIONS);
    expect(await chunkRows(runId)).toEqual([queued(fed[0]!.chunkId, '2020-03-05', '2020-03-07')]);
    expect(fed).toHaveLength(1);
    expect(await cursor(runId)).toEqual(d('2020-03-07'));
  });

  it('feeds no paused run and no blocked dataset: no chunk, cursor where it was', async () => {
    const paused = await newRun('2020-04-02', '2020-04-04');
    await pauseRun(wh.app.db, paused);
    const blocked = await newRun('2020-04-06', '2020-04-08');
    await wh.app.db
      .updateTable('run')
      .set({ blocked_datasets: ['weather'] })
      .where('run_id', '=', blocked)
      .execute();
    expect(await materializeChunks(wh.app.db, 5, OPTIONS)).toEqual([]);
    expect(await chunkRows(paused)).toEqual([]);
    expect(await chunkRows(blocked)).toEqual([]);
    expect(await cursor(paused)).toEqual(d('2020-04-02'));
    expect(await cursor(blocked)).toEqual(d('2020-04-06'));
  });

  it('gives nothing to a feeder while another one feeds', async () => {
    const runId = await newRun('2020-05-02', '2020-05-04');
    await wh.app.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext('envdata.feeder'))`.execute(trx);
      expect(await materializeChunks(wh.app.db, 5, OPTIONS)).toEqual([]);
    });
    expect(await chunkRows(runId)).toEqual([]);
    expect(await materializeChunks(wh.app.db, 5, OPTIONS)).toHaveLength(1);
  });
});
