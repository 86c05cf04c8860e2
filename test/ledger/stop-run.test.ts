import { beforeAll, describe, expect, it } from 'vitest';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { claimChunk } from '../../src/ledger/claim-chunk.js';
import { stopRun } from '../../src/ledger/stop-run.js';
import { landingOfBody } from '../fixtures/landing-of-body.js';
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

/** A running run of Oslo's weather over `[from, to)` in chunks of a day, each claimed. */
async function claimedRun(from: string, to: string) {
  const { runId, chunkIds } = await planRunChunks(wh.app.db, {
    dataset: 'weather',
    locationId: oslo,
    from: at(from),
    to: at(to),
    windowHours: 24,
  });
  const chunks = [];
  for (const id of chunkIds) {
    const claim = await claimChunk(wh.app.db, id, RECHECKS);
    if (!claim || 'settled' in claim) throw new Error(`chunk ${id} not claimed`);
    chunks.push(claim);
  }
  return { runId, chunks };
}

function runRow(runId: number) {
  return wh.app.db
    .selectFrom('run')
    .select(['status', 'error_code', 'error_message', 'finished_at'])
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
}

function events(runId: number) {
  return wh.app.db
    .selectFrom('notification')
    .select(['dedupe_key', 'event'])
    .where('dedupe_key', 'like', `run:${runId}:%`)
    .execute();
}

describe('stopRun', () => {
  it('stops a running run once, with the event its code tells of', async () => {
    for (const [code, event, day] of [
      ['UNAUTHORIZED', 'key-refused', '2022-01-01'],
      ['WRONG_ADDRESS', 'wrong-address', '2022-01-03'],
      ['SOMETHING_ELSE', 'run-stopped', '2022-01-05'],
    ] as const) {
      const { runId } = await claimedRun(`${day}T00:00:00`, `${day}T12:00:00`);
      expect(await stopRun(wh.app.db, runId, code, `stopped: ${code}`)).toBe(true);
      expect(await runRow(runId)).toMatchObject({
        status: 'stopped',
        error_code: code,
        error_message: `stopped: ${code}`,
        finished_at: expect.any(Date),
      });
      // Stopped already: nothing changes, nothing more is recorded.
      expect(await stopRun(wh.app.db, runId, 'OTHER', 'again')).toBe(false);
      expect(await runRow(runId)).toMatchObject({ error_code: code });
      expect(await events(runId)).toEqual([{ dedupe_key: `run:${runId}:stopped`, event }]);
    }
  });

  it('forgetNotCovered: the 404 hours the run recorded are forgotten and their chunks wait again', async () => {
    const { runId, chunks } = await claimedRun('2022-02-01T00:00:00', '2022-02-03T00:00:00');
    const [first, second] = chunks;
    const notCovered = landingOfBody(
      {
        chunkId: first!.chunkId,
        runId,
        dataset: 'weather',
        locationId: oslo,
        window: first!.window,
      },
      null,
      { outcome: 'not_covered', expected: first!.window },
    );
    await new FactWriter(wh.app.db, { archiveRaw: false }).land([notCovered]);
    const holes = () =>
      wh.app.db.selectFrom('coverage_hole').select(['cause']).where('run_id', '=', runId).execute();
    expect(await holes()).toEqual([{ cause: 'not_covered' }]);

    expect(
      await stopRun(wh.app.db, runId, 'WRONG_ADDRESS', 'not the service', {
        forgetNotCovered: true,
      }),
    ).toBe(true);
    expect(await holes()).toEqual([]);
    const rows = await wh.app.db
      .selectFrom('chunk')
      .select(['chunk_id', 'status', 'outcome', 'not_covered_hours', 'finished_at'])
      .where('run_id', '=', runId)
      .orderBy('window_from')
      .execute();
    expect(rows).toEqual([
      {
        chunk_id: first!.chunkId,
        status: 'queued',
        outcome: null,
        not_covered_hours: 0,
        finished_at: null,
      },
      // Still in flight, told nothing: left as it was.
      {
        chunk_id: second!.chunkId,
        status: 'running',
        outcome: null,
        not_covered_hours: 0,
        finished_at: null,
      },
    ]);
  });

  it("within the caller's transaction: rolled back with it", async () => {
    const { runId } = await claimedRun('2022-03-01T00:00:00', '2022-03-01T12:00:00');
    await expect(
      wh.app.db.transaction().execute(async (trx) => {
        expect(await stopRun(trx, runId, 'UNAUTHORIZED', 'refused')).toBe(true);
        throw new Error('the caller gives up');
      }),
    ).rejects.toThrow('the caller gives up');
    expect((await runRow(runId)).status).toBe('running');
    expect(await events(runId)).toEqual([]);
  });
});
