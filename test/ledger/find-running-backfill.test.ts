import { describe, expect, it } from 'vitest';
import { findRunningBackfill } from '../../src/ledger/find-running-backfill.js';
import { planRun } from '../../src/planner/plan-run.js';
import { BERLIN } from '../fixtures/places.js';
import { addPointLocation } from '../harness/add-point-location.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

describe('the same backfill given again finds the running one', () => {
  it('by the signature the plan records in its one insert of the run', async () => {
    const berlin = await addPointLocation(wh.app.db, BERLIN);
    const signature = {
      datasets: ['weather'],
      from: '2024-03-01T00:00:00.000Z',
      to: '2024-03-03T00:00:00.000Z',
      locations: [berlin.locationId],
      windowHours: 24,
      // What the plan's own record of the request does not say: only the signature carries it.
      recheckNoData: true,
    };
    expect(await findRunningBackfill(wh.app.db, signature)).toBeUndefined();
    const { runId } = await planRun(
      wh.app.db,
      {
        kind: 'backfill',
        datasets: ['weather'],
        locations: [berlin],
        from: new Date(signature.from),
        to: new Date(signature.to),
        windowHours: 24,
      },
      [],
      { signature },
    );
    expect(runId).toBeDefined();
    // Nothing but the plan ran: the run is findable from the moment it exists.
    expect(await findRunningBackfill(wh.app.db, signature)).toBe(runId);
    const run = await wh.app.db
      .selectFrom('run')
      .select('request')
      .where('run_id', '=', runId!)
      .executeTakeFirstOrThrow();
    expect(run.request).toMatchObject(signature);
    // Another command (another range, or without the recheck) is not this run.
    expect(
      await findRunningBackfill(wh.app.db, { ...signature, to: '2024-03-04T00:00:00.000Z' }),
    ).toBeUndefined();
    expect(
      await findRunningBackfill(wh.app.db, { ...signature, recheckNoData: false }),
    ).toBeUndefined();
  });
});
