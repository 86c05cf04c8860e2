import { beforeAll, describe, expect, it } from 'vitest';
import { markRunWaiting } from '../../src/ledger/mark-run-waiting.js';
import { planRunChunks } from '../harness/plan-run-chunks.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let oslo: number;
const at = (instant: string) => new Date(`${instant}Z`);

beforeAll(async () => {
  oslo = (await wh.addLocation({ name: 'Oslo', lat: 59.9139, lng: 10.7522, countryCode: 'NO' }))
    .locationId;
});

/** A running run of one chunk of Oslo's weather on `day`. */
async function run(day: string): Promise<number> {
  const { runId } = await planRunChunks(wh.app.db, {
    dataset: 'weather',
    locationId: oslo,
    from: at(`${day}T00:00:00`),
    to: at(`${day}T12:00:00`),
    windowHours: 24,
  });
  return runId;
}

function waiting(runId: number) {
  return wh.app.db
    .selectFrom('run')
    .select(['status', 'waiting_reason', 'waiting_until'])
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
}

function reached() {
  return wh.app.db
    .selectFrom('notification')
    .select(['dedupe_key', 'details'])
    .where('event', '=', 'quota-reached')
    .orderBy('notification_id')
    .execute();
}

describe('markRunWaiting', () => {
  it("envdata's own quota: the run shows why and until when, and no event is recorded", async () => {
    const runId = await run('2022-04-01');
    const until = at('2022-04-02T00:00:00');
    await markRunWaiting(wh.app.db, runId, 'quota (day)', until);
    expect(await waiting(runId)).toEqual({
      status: 'running',
      waiting_reason: 'quota (day)',
      waiting_until: until,
    });
    // A later reset, or another window: the run shows the latest.
    const month = at('2022-05-01T00:00:00');
    await markRunWaiting(wh.app.db, runId, 'budget (month)', month);
    expect(await waiting(runId)).toMatchObject({
      waiting_reason: 'budget (month)',
      waiting_until: month,
    });
    expect(await reached()).toEqual([]);
  });

  it('refused by the service: quota-reached once per reset, whatever the runs and jobs held', async () => {
    const [a, b] = [await run('2022-04-03'), await run('2022-04-04')];
    const until = at('2022-04-05T00:00:00');
    const refused = { counted: 412, limit: 1_000 };
    for (const runId of [a, a, b, b]) {
      await markRunWaiting(wh.app.db, runId, 'quota (day)', until, refused);
    }
    for (const runId of [a, b]) {
      expect(await waiting(runId)).toMatchObject({ waiting_reason: 'quota (day)' });
    }
    const events = await reached();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      dedupe_key: `quota:quota (day):${until.toISOString()}:reached`,
      details: { reason: 'quota (day)', refusedByService: true, counted: 412, limit: 1_000 },
    });
    expect((events[0]!.details as { action: string }).action).toMatch(/^check the plan/);
  });
});
