import { beforeAll, describe, expect, it } from 'vitest';
import { createRunWithGaps } from '../../src/ledger/create-run-with-gaps.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
const at = (instant: string) => new Date(`${instant}Z`);

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
});

const GAP = {
  dataset: 'pollen' as const,
  locationId: 0,
  from: at('2022-09-01T00:00:00'),
  to: at('2022-09-03T00:00:00'),
};

describe('createRunWithGaps', () => {
  it('writes a running run and its gaps, each cursor at its start', async () => {
    const gap = { ...GAP, locationId: oslo };
    const runId = await createRunWithGaps(wh.app.db, {
      kind: 'sync',
      priority: 5,
      windowHours: 24,
      windowAuto: true,
      gaps: [gap],
      request: { from: '2022-09-01' },
      refetch: true,
    });
    const run = await wh.app.db
      .selectFrom('run')
      .select(['kind', 'status', 'priority', 'window_auto', 'request', 'finished_at'])
      .where('run_id', '=', runId)
      .executeTakeFirstOrThrow();
    expect(run).toEqual({
      kind: 'sync',
      status: 'running',
      priority: 5,
      window_auto: true,
      request: { from: '2022-09-01' },
      finished_at: null,
    });
    const gaps = await wh.app.db
      .selectFrom('run_gap')
      .select([
        'dataset',
        'location_id',
        'gap_from',
        'gap_to',
        'next_from',
        'window_hours',
        'refetch',
      ])
      .where('run_id', '=', runId)
      .execute();
    expect(gaps).toEqual([
      {
        dataset: 'pollen',
        location_id: oslo,
        gap_from: gap.from,
        gap_to: gap.to,
        next_from: gap.from,
        window_hours: 24,
        refetch: true,
      },
    ]);
  });

  it("within the caller's transaction: nothing is kept when it rolls back", async () => {
    const before = await wh.app.db.selectFrom('run').select('run_id').execute();
    await expect(
      wh.app.db.transaction().execute(async (trx) => {
        await createRunWithGaps(trx, {
          kind: 'backfill',
          priority: 0,
          windowHours: 24,
          gaps: [{ ...GAP, locationId: oslo }],
          request: {},
        });
        throw new Error('the caller gives up');
      }),
    ).rejects.toThrow('the caller gives up');
    expect(await wh.app.db.selectFrom('run').select('run_id').execute()).toEqual(before);
  });
});
