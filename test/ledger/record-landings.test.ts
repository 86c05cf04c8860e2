import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { claimChunk } from '../../src/ledger/claim-chunk.js';
import { ledgerStatements, type LandingRecord } from '../../src/ledger/record-landings.js';
import type { Window } from '../../src/types.js';
import { planRunChunks } from '../harness/plan-run-chunks.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
const at = (instant: string) => new Date(`${instant}Z`);
const w = (from: string, to: string): Window => ({ from: at(from), to: at(to) });
const RECHECKS = { recheckMs: 86_400_000, noDataRecheckMs: 0 };
const NO_HOLES = { missing_upstream: [], quarantined: [], not_covered: [] };

/** A claimed chunk of Oslo's weather over one day from `day`, a run of its own. */
async function claimedDay(
  day: string,
): Promise<{ chunkId: number; runId: number; window: Window }> {
  const from = at(`${day}T00:00:00`);
  const window = { from, to: new Date(from.getTime() + 86_400_000) };
  const { runId, chunkIds } = await planRunChunks(wh.app.db, {
    dataset: 'weather',
    locationId: oslo,
    ...window,
    windowHours: 24,
  });
  const claim = await claimChunk(wh.app.db, chunkIds[0]!, RECHECKS);
  if (!claim || 'settled' in claim) throw new Error(`chunk of ${day} not claimed`);
  return { chunkId: claim.chunkId, runId, window };
}

function landing(
  chunk: { chunkId: number; runId: number; window: Window },
  over: Partial<LandingRecord>,
): LandingRecord {
  return {
    ...chunk,
    locationId: oslo,
    dataset: 'weather',
    outcome: 'rows',
    state: 'done',
    calls: 1,
    attempts: 1,
    startedAt: new Date(),
    rows: 0,
    recordsQuarantined: 0,
    landed: [],
    holes: NO_HOLES,
    noData: [],
    quarantine: [],
    ...over,
  };
}

/** Runs the ledger's statements for `landings` in order, in one transaction, as a landing does. */
function record(
  landings: LandingRecord[],
  options = { factsChanged: true, settled: false },
): Promise<void> {
  return wh.app.db.transaction().execute(async (trx) => {
    const statements = ledgerStatements(landings, options.settled);
    for (const s of [...statements.first, ...statements.after(options.factsChanged)]) {
      await s.execute(trx);
    }
  });
}

function chunkRow(chunkId: number) {
  return wh.app.db
    .selectFrom('chunk')
    .select([
      'status',
      'outcome',
      'rows_landed',
      'rows_quarantined',
      'calls',
      'attempts',
      'refetches',
      'missing_hours',
      'quarantined_hours',
      'not_covered_hours',
      'no_data_hours',
      'error_code',
      'error_message',
      'started_at',
      'finished_at',
    ])
    .where('chunk_id', '=', chunkId)
    .executeTakeFirstOrThrow();
}

/** Oslo's weather coverage and holes, as text (the connection's time zone is UTC). */
async function coverage(): Promise<{ landed: string; no_data: string; holes: string[] }> {
  const { rows } = await sql<{ landed: string; no_data: string }>`
    select landed::text, no_data::text from envdata.coverage
    where location_id = ${oslo} and dataset = 'weather'`.execute(wh.app.db);
  const holes = await sql<{ hole: string }>`
    select hours::text || ' ' || cause::text || ' run ' || coalesce(run_id::text, '-') as hole
    from envdata.coverage_hole where location_id = ${oslo} and dataset = 'weather'
    order by lower(hours)`.execute(wh.app.db);
  return { ...(rows[0] ?? { landed: '-', no_data: '-' }), holes: holes.rows.map((h) => h.hole) };
}

const range = (from: string, to: string) => `["2020-07-${from}:00+00","2020-07-${to}:00+00")`;

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
});

describe('ledgerStatements', () => {
  it('a finished answer: chunk done with its figures, coverage, holes, quarantine and dirty days', async () => {
    const chunk = await claimedDay('2020-07-01');
    const claimed = await chunkRow(chunk.chunkId);
    await record([
      landing(chunk, {
        calls: 2,
        attempts: 2,
        rows: 12,
        newRows: 10,
        recordsQuarantined: 1,
        landed: [w('2020-07-01T00:00:00', '2020-07-01T12:00:00')],
        holes: {
          ...NO_HOLES,
          missing_upstream: [w('2020-07-01T12:00:00', '2020-07-01T18:00:00')],
          quarantined: [w('2020-07-01T18:00:00', '2020-07-01T19:00:00')],
        },
        noData: [w('2020-07-01T19:00:00', '2020-07-02T00:00:00')],
        quarantine: [
          {
            source: 'weather',
            recordIndex: 18,
            raw: { temp: 'hot' },
            reason: 'temp is not a number',
            hour: at('2020-07-01T18:00:00'),
          },
        ],
      }),
    ]);
    expect(await chunkRow(chunk.chunkId)).toEqual({
      status: 'done',
      outcome: 'rows',
      rows_landed: 10,
      rows_quarantined: 1,
      calls: 2,
      attempts: 2,
      refetches: 0,
      missing_hours: 6,
      quarantined_hours: 1,
      not_covered_hours: 0,
      no_data_hours: 5,
      error_code: null,
      error_message: null,
      started_at: claimed.started_at,
      finished_at: expect.any(Date),
    });
    expect(await coverage()).toEqual({
      landed: `{${range('01 00:00', '01 12:00')}}`,
      no_data: `{${range('01 19:00', '02 00:00')}}`,
      holes: [
        `${range('01 12:00', '01 18:00')} missing_upstream run ${chunk.runId}`,
        `${range('01 18:00', '01 19:00')} quarantined run ${chunk.runId}`,
        `${range('01 19:00', '02 00:00')} no_data run ${chunk.runId}`,
      ],
    });
    const quarantine = await wh.app.db
      .selectFrom('quarantine')
      .select(['chunk_id', 'run_id', 'location_id', 'source', 'record_index', 'raw', 'reason'])
      .select('observed_at')
      .execute();
    expect(quarantine).toEqual([
      {
        chunk_id: chunk.chunkId,
        run_id: chunk.runId,
        location_id: oslo,
        source: 'weather',
        record_index: 18,
        raw: { temp: 'hot' },
        reason: 'temp is not a number',
        observed_at: at('2020-07-01T18:00:00'),
      },
    ]);
    expect(await wh.app.db.selectFrom('rollup_dirty').selectAll().execute()).toEqual([
      {
        location_id: oslo,
        dataset: 'weather',
        from_at: chunk.window.from,
        to_at: chunk.window.to,
      },
    ]);
  });

  it('hours still missing with a re-fetch allowed: the chunk waits again, what arrived is covered, no hole', async () => {
    const chunk = await claimedDay('2020-07-03');
    const claimed = await chunkRow(chunk.chunkId);
    await record([
      landing(chunk, {
        state: 'refetch',
        rows: 6,
        landed: [w('2020-07-03T00:00:00', '2020-07-03T06:00:00')],
        holes: { ...NO_HOLES, missing_upstream: [w('2020-07-03T06:00:00', '2020-07-04T00:00:00')] },
        error: { code: 'MISSING_HOURS', message: '18 hours missing from the answer; asking again' },
      }),
    ]);
    expect(await chunkRow(chunk.chunkId)).toEqual({
      status: 'queued',
      outcome: 'rows',
      rows_landed: 6,
      rows_quarantined: 0,
      calls: 1,
      attempts: 1,
      refetches: 1,
      missing_hours: 18,
      quarantined_hours: 0,
      not_covered_hours: 0,
      no_data_hours: 0,
      error_code: 'MISSING_HOURS',
      error_message: '18 hours missing from the answer; asking again',
      started_at: claimed.started_at,
      finished_at: null,
    });
    const { landed, holes } = await coverage();
    expect(landed).toBe(`{${range('01 00:00', '01 12:00')},${range('03 00:00', '03 06:00')}}`);
    expect(holes.filter((h) => h.includes('2020-07-03'))).toEqual([]);
  });

  it('a trimmed (206) answer is written once: queued for its retry, or failed at its last attempt', async () => {
    const trimmed = { code: 'PARTIAL' as const, message: 'trimmed' };
    for (const [day, state, status] of [
      ['2020-07-07', 'partial', 'queued'],
      ['2020-07-08', 'failed', 'failed'],
    ] as const) {
      const chunk = await claimedDay(day);
      await record([
        landing(chunk, {
          state,
          rows: 4,
          attempts: 3,
          landed: [w(`${day}T00:00:00`, `${day}T04:00:00`)],
          error: trimmed,
        }),
      ]);
      expect(await chunkRow(chunk.chunkId)).toMatchObject({
        status,
        rows_landed: 4,
        calls: 1,
        attempts: 3,
        refetches: 0,
        missing_hours: 0,
        error_code: 'PARTIAL',
        error_message: 'trimmed',
        finished_at: state === 'failed' ? expect.any(Date) : null,
      });
    }
    // What arrived is covered; no hole is written for a chunk that is not done.
    const { landed, holes } = await coverage();
    expect(landed).toContain(range('07 00:00', '07 04:00'));
    expect(landed).toContain(range('08 00:00', '08 04:00'));
    expect(holes.filter((h) => h.includes('2020-07-07') || h.includes('2020-07-08'))).toEqual([]);
  });

  it('a chunk done stays as it was; a settled batch writes the log alone', async () => {
    const chunk = await claimedDay('2020-07-05');
    const full = landing(chunk, {
      rows: 24,
      landed: [chunk.window],
    });
    await record([full]);
    const done = await chunkRow(chunk.chunkId);
    const covered = await coverage();
    // A late copy of the same landing (a redelivered job): the chunk's figures do not add up twice.
    await record([{ ...full, calls: 1, rows: 24 }]);
    expect(await chunkRow(chunk.chunkId)).toEqual(done);
    expect(await coverage()).toEqual(covered);

    // Settled: coverage, holes and the chunk are not written, whatever the records say.
    const entry = {
      source: 'weather',
      recordIndex: 3,
      raw: null,
      reason: 'no time',
      hour: undefined,
    };
    await record(
      [{ ...full, landed: [w('2020-07-06T00:00:00', '2020-07-07T00:00:00')], quarantine: [entry] }],
      { factsChanged: false, settled: true },
    );
    expect(await chunkRow(chunk.chunkId)).toEqual(done);
    expect(await coverage()).toEqual(covered);
    // The log is written all the same: the chunk's quarantine entries are this batch's.
    const log = await wh.app.db
      .selectFrom('quarantine')
      .select(['record_index', 'reason', 'observed_at'])
      .where('chunk_id', '=', chunk.chunkId)
      .execute();
    expect(log).toEqual([{ record_index: 3, reason: 'no time', observed_at: null }]);
  });
});
